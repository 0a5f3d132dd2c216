package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// olderClaim is a real ledger seen as a shared one, where host b claims
// slot at (older than this host's coalesced replay's slot) just after
// that replay took the task's lock, before it records its folds: they then
// find at held. (b's run then finds the lock held: a lock skip.)
type olderClaim struct {
	store.Store
	at time.Time
	id int64 // b's run
}

func (o *olderClaim) LockTask(ctx context.Context, l store.TaskLock) (func(), bool, error) {
	release, ok, err := o.Store.LockTask(ctx, l)
	if err == nil && ok && o.id == 0 {
		b, err := o.Store.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: l.Task, Slot: o.at,
			Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: l.Now, Host: "b"}})
		if err != nil || !b.Claimed {
			release()
			return nil, false, fmt.Errorf("test: host b's claim of %s: %+v, %w", o.at, b, err)
		}
		o.id = b.Run.ID
	}
	return release, ok, err
}

func (o *olderClaim) Shared() bool { return true }

// TestCoalescedReplayRunsNothingBeforeAHeldSlot: two hosts' scans of one
// coalesce task, whose clocks (or tolerances) differ, replay different
// latest slots: b's 12:00 (its gap 11:00-12:00) and this host's 15:00 (its
// gap 11:00-15:00). b's claim comes after this host's took the task's
// lock, before its folds, which find 12:00 held. This host must not run 15:00 now: b's run of 12:00 has not run
// (this host holds the task's lock) and 11:00, 13:00 and 14:00 would run
// after 15:00. It gives its claim back and its folds, and the next scan,
// once b's run is over (succeeded, or given back as a lock skip), replays
// the rest oldest first, each interval once. Before, 15:00 ran at once for
// its own interval (14:00-15:00), and the next scan ran 11:00 and 13:00-14:00
// after it.
func TestCoalescedReplayRunsNothingBeforeAHeldSlot(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		b    store.Outcome // b's run, over before the next scan
		want []string      // the intervals this host's job was told, in order
	}{
		"b succeeds": {b: store.Outcome{Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)},
			want: []string{"09-10", "10-11", "12-15"}},
		"b gives its claim back": {b: store.Outcome{Status: store.StatusSkipped, ExitCode: exitCodePtr(exitLocked), Error: reasonLocked},
			want: []string{"09-10", "10-15"}},
	}
	for backend, open := range sharedLedgers {
		for name, tc := range tests {
			t.Run(backend+"/"+strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
				st, db := open(t)
				dir := t.TempDir()
				now := mustTime(t, "2026-03-01T10:00:30Z")
				m := testMachine(db, now)
				m.LockDir = filepath.Join(t.TempDir(), "locks")
				m.Now = func() time.Time { return now }
				req := RunRequest{Task: "job", Schedule: mustSchedule(t, "0 * * * *", "UTC"), TZ: "UTC", Replay: "coalesce",
					Tolerance: 5 * time.Minute, KillAfter: time.Second, Dir: dir,
					Argv: []string{"sh", "-c", `echo "$CATCHUP_PREV_SLOT-$CATCHUP_SLOT" >> told.log`}}
				if res, err := Run(context.Background(), st, nil, m, req); err != nil || res.ExitCode != 0 {
					t.Fatalf("registering fire: exit %d, %v", res.ExitCode, err)
				}
				now = mustTime(t, "2026-03-01T15:30:00Z")
				ledger := &olderClaim{Store: st, at: mustTime(t, "2026-03-01T12:00:00Z")}
				if _, err := Scan(context.Background(), ledger, m, scanRequest()); err != nil {
					t.Fatalf("first scan: %v", err)
				}
				if ledger.id == 0 {
					t.Fatal("host b never claimed 12:00")
				}
				out := tc.b
				out.EndedAt = now
				if err := st.Finish(context.Background(), ledger.id, out); err != nil {
					t.Fatal(err)
				}
				now = mustTime(t, "2026-03-01T15:40:00Z")
				if _, err := Scan(context.Background(), st, m, scanRequest()); err != nil {
					t.Fatalf("second scan: %v", err)
				}
				b, _ := os.ReadFile(filepath.Join(dir, "told.log"))
				var got []string
				for _, l := range strings.Fields(string(b)) {
					got = append(got, strings.NewReplacer("2026-03-01T", "", ":00:00Z", "").Replace(l))
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("the job was told %q, want %q: oldest first, each interval once", got, tc.want)
				}
			})
		}
	}
}

// claimBeforeFolds is a real ledger seen as a shared one, where host b
// claims slot at just before scan records the folds of a crontab line's
// coalesced replay (foldBeforeLine).
type claimBeforeFolds struct {
	store.Store
	at time.Time
	id int64 // b's run
}

func (c *claimBeforeFolds) AddRunsOf(ctx context.Context, registered store.Of, runs []store.Run) ([]int64, error) {
	if c.id == 0 && len(runs) > 0 && isFold(runs[0]) {
		b, err := c.Store.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: runs[0].Task, Slot: c.at,
			Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: runs[0].StartedAt, Host: "b"}})
		if err != nil || !b.Claimed {
			return nil, fmt.Errorf("test: host b's claim of %s: %+v, %w", c.at, b, err)
		}
		c.id = b.Run.ID
	}
	return c.Store.AddRunsOf(ctx, registered, runs)
}

func (c *claimBeforeFolds) Shared() bool { return true }

// TestCoalescedLineRunsNothingBeforeAHeldSlot: the same race for a crontab
// line, whose folds scan records before it runs the line: host b's claim
// of 12:00 comes first. The line is not run (15:00 would run before 11:00,
// 13:00 and 14:00); once b gave its claim back, the next scan runs the
// line once, for 15:00, told the whole gap. Before, the line ran 15:00 at
// once, and the next scan 14:00 after it.
func TestCoalescedLineRunsNothingBeforeAHeldSlot(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil } // where the line runs
	tab := strings.Join([]string{"PATH=" + lineCatchupDir(t) + ":/usr/bin:/bin", "JOBDIR=" + f.job.dir,
		"NOW=2026-03-01T15:30:00Z", "0 * * * * catchup run --task job -- true", ""}, "\n")
	scan := func(st store.Store) TaskScan {
		t.Helper()
		req := scanRequest()
		req.Replay = "coalesce"
		req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader(tab)}}
		rep, err := Scan(context.Background(), st, f.m, req)
		if err != nil || len(rep.Tasks) != 1 {
			t.Fatalf("scan: %+v, %v", rep.Tasks, err)
		}
		return rep.Tasks[0]
	}
	scan(f.st) // registers the line
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	ledger := &claimBeforeFolds{Store: f.st, at: mustTime(t, "2026-03-01T12:00:00Z")}
	scan(ledger)
	if ledger.id == 0 {
		t.Fatal("host b never claimed 12:00")
	}
	if got := f.job.runs(t); len(got) != 0 {
		t.Errorf("the first scan ran the line for %v, want nothing: 12:00 is b's, and 11:00 older still", got)
	}
	if err := giveBack(context.Background(), f.st, f.now); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T15:40:00Z")
	scan(f.st)
	if got := strings.Join(f.job.runs(t), "|"); got != "2026-03-01T15:00:00Z replay" {
		t.Errorf("the line ran for %q, want 15:00 once, told the whole gap", got)
	}
}
