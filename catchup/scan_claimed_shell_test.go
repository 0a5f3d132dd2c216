package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/internal/testflags"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// parallelWaiters is how many of the tests marked t.Parallel run at once
// unless -test.parallel says otherwise. They mostly wait (fsyncs,
// PostgreSQL, real processes, short timers), not work: at go test's
// default, GOMAXPROCS, two CPUs ran two at a time and stood idle.
const parallelWaiters = 4

// TestMain lets this test binary stand in for the `catchup` that a crontab
// line runs (lineCatchup), when it is started under that name.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "catchup" {
		os.Exit(lineCatchup())
	}
	testflags.DefaultParallel(parallelWaiters)
	os.Exit(m.Run())
}

// lineCatchup is the `catchup run --task job` of the crontab line that
// scan replays, with the real run lifecycle on the ledger in CATCHUP_DB.
// At the slot in HELD, the first time (no file at MARK yet), host b's late
// fire claims the slot just before this run does, so that this run finds it
// held and exits 0, running nothing, as the contract says. With
// GIVE_BACK=line, b's fire then loses the task's ledger lock (a lock skip)
// before the line exits; otherwise it does so later, while scan finishes
// (lostClaim.SetSettled).
func lineCatchup() int {
	ctx := context.Background()
	db, jobDir := os.Getenv("CATCHUP_DB"), os.Getenv("JOBDIR")
	slot, err1 := time.Parse(time.RFC3339, os.Getenv("CATCHUP_REPLAY_SLOT"))
	now, err2 := time.Parse(time.RFC3339, os.Getenv("NOW"))
	sched, err3 := parseSchedule("0 * * * *", "UTC")
	st, err4 := sqlite.Open(ctx, db)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			fmt.Fprintln(os.Stderr, "line's catchup:", err)
			return ExitInternal
		}
	}
	defer st.Close()
	var b int64
	if held := os.Getenv("HELD"); held == os.Getenv("CATCHUP_REPLAY_SLOT") {
		if _, err := os.Stat(os.Getenv("MARK")); os.IsNotExist(err) {
			os.WriteFile(os.Getenv("MARK"), nil, 0o600)
			c, err := st.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule,
				Status: store.StatusRunning, Attempt: 1, StartedAt: now, Host: "b"}})
			if err != nil || !c.Claimed {
				fmt.Fprintln(os.Stderr, "line's catchup: host b's claim:", c, err)
				return ExitInternal
			}
			b = c.Run.ID
		}
	}
	m := testMachine(db, now)
	res, err := Run(ctx, seenShared{st}, nil, m, RunRequest{Task: "job", Schedule: sched, TZ: "UTC", Replay: "all",
		Tolerance: 5 * time.Minute, KillAfter: time.Second, Argv: slotLog{dir: jobDir}.argv(), Dir: jobDir, ReplaySlot: slot})
	if err != nil {
		fmt.Fprintln(os.Stderr, "line's catchup:", err)
		return ExitInternal
	}
	if b != 0 && os.Getenv("GIVE_BACK") == "line" {
		if err := giveBack(ctx, st, now); err != nil {
			fmt.Fprintln(os.Stderr, "line's catchup:", err)
			return ExitInternal
		}
	}
	if os.Getenv("HIDE_FAILURE") != "" {
		return 0 // the line is `catchup run ...; true`
	}
	return res.ExitCode
}

// lineCatchupDir is a directory holding this test binary as `catchup`, for
// a crontab line's PATH: it runs lineCatchup.
func lineCatchupDir(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "catchup")); err != nil {
		t.Fatal(err)
	}
	return bin
}

// seenShared is a real ledger seen as a fleet's: a run of another host
// is alive as long as it is running (no flock on this host can tell).
type seenShared struct{ store.Store }

func (seenShared) Shared() bool { return true }

// giveBack records every running run of host b as a lock skip: b's fire
// lost the task's ledger lock and ran nothing.
func giveBack(ctx context.Context, st store.Store, at time.Time) error {
	running, err := st.Running(ctx)
	if err != nil {
		return err
	}
	for _, r := range running {
		if r.Host != "b" {
			continue
		}
		code := exitLocked
		if err := st.Finish(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: at,
			ExitCode: &code, Error: reasonLocked + " on another host"}); err != nil {
			return err
		}
	}
	return nil
}

// TestShellReplayOfHeldSlotSettlesNothing: a crontab line is replayed
// through its shell, and its `catchup run` exits 0 when it finds the slot
// held by another host's running run, as it does when the slot is done. The
// shell's exit status cannot tell the two apart; the ledger can. A slot
// whose claim host b then gives back (a lock skip, before or after the line
// exits) is still missed: scan must not move the watermark past it, and
// the next scan replays it. Found so when the line exits (held by a run
// still running, or given back already), it also ends the task's replays
// in that scan: 13:00-15:00 wait, so that none runs before it.
func TestShellReplayOfHeldSlotSettlesNothing(t *testing.T) {
	t.Parallel()
	type want struct{ missed, replayed, skipped int }
	for name, tc := range map[string]struct {
		giveBackIn    string
		first, second want
	}{
		"given back after the line exits":  {giveBackIn: "settle", first: want{5, 1, 1}, second: want{4, 4, 0}},
		"given back before the line exits": {giveBackIn: "line", first: want{5, 1, 1}, second: want{4, 4, 0}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each on its own ledger; most of the time is the lines' processes
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil } // where the line runs
			bin := lineCatchupDir(t)
			held := "2026-03-01T12:00:00Z"
			tab := strings.Join([]string{
				"PATH=" + bin + ":/usr/bin:/bin", "JOBDIR=" + f.job.dir, "HELD=" + held,
				"MARK=" + filepath.Join(t.TempDir(), "b-claimed"), "GIVE_BACK=" + tc.giveBackIn, "NOW=2026-03-01T15:30:00Z",
				"0 * * * * catchup run --task job -- true", ""}, "\n")
			req := scanRequest()
			scan := func(st store.Store) TaskScan {
				t.Helper()
				req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader(tab)}}
				rep, err := Scan(context.Background(), st, f.m, req)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if len(rep.Tasks) != 1 {
					t.Fatalf("scanned %+v, want task job", rep.Tasks)
				}
				return rep.Tasks[0]
			}
			if ts := scan(f.st); len(ts.Missed) != 0 {
				t.Fatalf("registering scan: missed %v", ts.Missed)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			ts := scan(&lostClaim{Store: f.st})
			if len(ts.Missed) != tc.first.missed || ts.Replayed != tc.first.replayed || ts.Skipped != tc.first.skipped {
				t.Fatalf("first scan: missed %v, replayed %d, skipped %d; want %d missed, %d replayed, "+
					"%d skipped (12:00: host b held it); actions %+v", ts.Missed, ts.Replayed, ts.Skipped,
					tc.first.missed, tc.first.replayed, tc.first.skipped, ts.Actions)
			}
			ts = scan(f.st)
			if len(ts.Missed) != tc.second.missed || ts.Missed[0].Format(time.RFC3339) != held || ts.Replayed != tc.second.replayed {
				t.Fatalf("second scan: missed %v, replayed %d; want %d missed from 12:00, whose claim host b gave back, "+
					"%d replayed", ts.Missed, ts.Replayed, tc.second.missed, tc.second.replayed)
			}
			if got := f.job.runs(t); len(got) != 5 {
				t.Errorf("the job ran for %d slots, want 5 (11:00-15:00), each once: %v", len(got), got)
			}
		})
	}
}

// TestShellReplayHidingFailure: a crontab line that hides its run's failure
// (`catchup run ...; true`) exits 0, but the ledger says the slot failed:
// scan reports it failed, and scan --retry-failed finds it later.
func TestShellReplayHidingFailure(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
	bin := lineCatchupDir(t)
	tab := strings.Join([]string{"PATH=" + bin + ":/usr/bin:/bin", "JOBDIR=" + f.job.dir, "HIDE_FAILURE=1",
		"NOW=2026-03-01T12:30:00Z", "0 * * * * catchup run --task job -- true", ""}, "\n")
	scan := func(retryFailed bool) TaskScan {
		t.Helper()
		req := scanRequest()
		req.RetryFailed = retryFailed
		req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader(tab)}}
		return f.scan(t, req)
	}
	scan(false) // registers the line
	f.job.exitAt(t, mustTime(t, "2026-03-01T11:00:00Z"), 3)
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	ts := scan(false)
	if ts.Replayed != 1 || ts.Failed != 1 || ts.Actions[0].ExitCode != 3 {
		t.Fatalf("scan: replayed %d, failed %d, actions %+v; want 11:00 failed (exit 3) and 12:00 replayed",
			ts.Replayed, ts.Failed, ts.Actions)
	}
	os.Remove(filepath.Join(f.job.dir, "exit-"+strconv.FormatInt(mustTime(t, "2026-03-01T11:00:00Z").Unix(), 10)))
	if ts := scan(true); ts.Replayed != 1 || len(ts.Missed) != 1 || ts.Missed[0].Hour() != 11 {
		t.Errorf("scan --retry-failed: missed %v, replayed %d; want 11:00 replayed", ts.Missed, ts.Replayed)
	}
}

// TestShellCoalesceThatDidNotRunFoldsNothing: a coalesced replay through a
// crontab line that never ran (here: scan cannot re-read the crontab, so
// the line fails before any `catchup run`) covered none of the gap: the
// folded slots stay missed, for the next scan to coalesce again.
func TestShellCoalesceThatDidNotRunFoldsNothing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
	req := scanRequest()
	req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader("0 * * * * catchup run --task job -- true\n")}}
	f.scan(t, req) // registers the line; stdin is not there to read again
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	req = scanRequest()
	req.Replay = "coalesce"
	ts := f.scan(t, req)
	if ts.Failed != 1 || ts.Replayed != 0 {
		t.Fatalf("coalescing scan: failed %d, replayed %d, actions %+v; want the replay of 15:00 failed", ts.Failed, ts.Replayed, ts.Actions)
	}
	if ts := f.scan(t, req); len(ts.Missed) != 5 {
		t.Errorf("next scan: missed %v, want 11:00-15:00 (nothing of the gap was covered)", ts.Missed)
	}
}
