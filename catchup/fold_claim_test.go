package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// raceLedger is a real ledger where, just before this process's claim of
// slot at, another process does what a second scan would have done first:
// claim at for a run of its own (held: running), or fold at into its
// coalesced replay of a later slot.
type raceLedger struct {
	store.Store
	at   time.Time
	fold bool // fold at, rather than claim it
	done bool
}

func (l *raceLedger) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !l.done && !req.Run.Slot.IsZero() && req.Run.Slot.After(l.at) == !l.fold {
		l.done = true
		other := store.Run{Task: req.Run.Task, Slot: l.at, Trigger: store.TriggerReplay, Status: store.StatusRunning,
			Attempt: 1, StartedAt: req.Run.StartedAt, Host: "b", PID: 1}
		if l.fold {
			other.Status, other.EndedAt, other.Error = store.StatusSkipped, req.Run.StartedAt, "coalesced into the replay of slot (b's)"
			if _, err := l.Store.AddRuns(ctx, []store.Run{other}); err != nil {
				return store.ClaimResult{}, err
			}
		} else if _, err := l.Store.Claim(ctx, store.ClaimRequest{Run: other}); err != nil {
			return store.ClaimResult{}, err
		}
	}
	return l.Store.Claim(ctx, req)
}

// TestFoldAndClaimRaceRunsEachIntervalOnce: a coalesced replay and a plain
// replay (two scans at once, or a scan and a backfill) of one gap. Claims
// refuse only running and succeeded holders, so each side checks after its
// own write: a folded slot claimed first by another run makes the
// coalesced replay give its folds back and its own claim (it ran for its
// own slot's interval, before the gap's older slots, until 2026-12-06:
// TestCoalescedReplayRunsNothingBeforeAHeldSlot); a slot folded first makes
// the plain replay give its claim back.
// Before, 4-7 of 10 tries of two real scans ran the gap's slots twice.
func TestFoldAndClaimRaceRunsEachIntervalOnce(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		fold   bool // the other process folds 12:00 (else it claims it)
		policy string
		want   []string // the intervals this process's job was told (09:00-10:00: the registering fire)
		left   int      // slots left missed for the next scan
	}{
		// 12:00 is the other run's (running): the coalesced replay of 15:00
		// gives its claim back too (run now, it ran before 11:00, 13:00 and
		// 14:00), a lock skip; 11:00, 13:00, 14:00 are left.
		"claimed before the fold": {policy: "coalesce", want: []string{"09:00-10:00"}, left: 3},
		"folded before the claim": {fold: true, policy: "all", want: []string{"09:00-10:00", "10:00-11:00", "12:00-13:00", "13:00-14:00", "14:00-15:00"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Replay = c.policy
			req.Argv = []string{"sh", "-c", `echo "$CATCHUP_PREV_SLOT-$CATCHUP_SLOT" >> told.log`}
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			ledger := &raceLedger{Store: f.st, at: mustTime(t, "2026-03-01T12:00:00Z"), fold: c.fold}
			rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
			if err != nil {
				t.Fatal(err)
			}
			if !ledger.done {
				t.Fatal("the other process never came in")
			}
			b, _ := os.ReadFile(filepath.Join(f.job.dir, "told.log"))
			var got []string
			for _, l := range strings.Fields(string(b)) {
				got = append(got, strings.NewReplacer("2026-03-01T", "", ":00Z", "").Replace(l))
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("the job was told %q, want %q", got, c.want)
			}
			if ts := rep.Tasks[0]; ts.Left != c.left {
				t.Errorf("left %d for the next scan, want %d", ts.Left, c.left)
			}
			// What this process folded and gave back settles nothing.
			runs, err := f.st.SlotRuns(context.Background(), "job", mustTime(t, "2026-03-01T11:00:00Z"), mustTime(t, "2026-03-01T14:00:00Z"), 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				if isFold(r) && r.Host != "b" {
					t.Errorf("run %d (%s) still folds slot %s", r.ID, r.Error, r.Slot.Format(time.RFC3339))
				}
			}
		})
	}
}
