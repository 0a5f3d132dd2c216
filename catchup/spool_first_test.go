package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFireAfterANotedOutcomeRunsNothing: the 10:00 run succeeded, but its
// outcome could not be recorded (the disk filled while it ran) and is
// noted on the host. The disk has room again, and before any scan another
// fire of 10:00 comes: a second cron in the same minute, a late fire, a
// run --slot by hand. Each records the notes first, as scan does, so it
// finds the slot succeeded and runs nothing (review: each ran the job a
// second time, without a word). A twin while the disk is still full reads
// the note it cannot record, and runs nothing either.
func TestFireAfterANotedOutcomeRunsNothing(t *testing.T) {
	t.Parallel()
	for name, second := range map[string]struct {
		at        string
		slot      bool
		stillFull bool
	}{
		"twin in the minute":                {at: "2026-03-01T10:00:40Z"},
		"twin while the disk is still full": {at: "2026-03-01T10:00:40Z", stillFull: true},
		"late":                              {at: "2026-03-01T10:04:00Z"},
		"--slot by hand":                    {at: "2026-03-01T10:20:00Z", slot: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T10:00:30Z")
			f.fireWithAFullDisk(t)
			m := f.m
			f.now = mustTime(t, second.at)
			req := f.request(t)
			if second.slot {
				req.Slot = mustTime(t, "2026-03-01T10:00:00Z")
			}
			var st store.Store = f.st
			if second.stillFull {
				st = failingFinish{f.st}
			}
			m.Now = func() time.Time { return f.now }
			res, err := Run(context.Background(), st, nil, m, req)
			if err != nil {
				t.Fatalf("second fire: %v", err)
			}
			if res.Ran || res.ExitCode != 0 {
				t.Errorf("second fire of 10:00: ran %v, exit %d; want not run, exit 0", res.Ran, res.ExitCode)
			}
			if got := f.job.runs(t); len(got) != 2 {
				t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
			}
			if second.stillFull {
				return // the note waits for the next scan
			}
			var ok int
			for _, r := range f.history(t) {
				if r.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) && r.Status == store.StatusSucceeded {
					ok++
				}
			}
			if ok != 1 {
				t.Errorf("10:00 has %d succeeded records, want 1 (the noted outcome, recorded)", ok)
			}
		})
	}
}

// TestNotedOutcomeIsTheTasksStatus: until the next scan records it, the
// readers take a run whose outcome is noted on the host for that outcome,
// also as the task's latest status (ls, metrics): not interrupted, which
// the run's record, running with its process gone, would say (review: a
// false alert on catchup_last_run_status).
func TestNotedOutcomeIsTheTasksStatus(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.fireWithAFullDisk(t)
	f.now = mustTime(t, "2026-03-01T10:20:00Z")
	all, err := List(context.Background(), f.st, f.m, ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Latest == nil || all[0].Latest.Status != store.StatusSucceeded || len(all[0].Missed) != 0 {
		t.Fatalf("List = %+v; want job's latest run succeeded (its noted outcome), nothing missed", all)
	}
}

// TestNotedOutcomeInHistory: history and show read a run whose outcome is
// noted as that outcome, not as interrupted.
func TestNotedOutcomeInHistory(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.fireWithAFullDisk(t)
	f.now = mustTime(t, "2026-03-01T10:20:00Z")
	runs, err := History(context.Background(), f.st, f.m, store.HistoryFilter{Task: "job"})
	if err != nil || len(runs) != 1 || runs[0].Status != store.StatusSucceeded || runs[0].Error != notedNote {
		t.Fatalf("History = %+v, %v; want the run succeeded, its outcome noted", runs, err)
	}
	r, err := f.st.Run(context.Background(), runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRun(context.Background(), f.st, f.m, r); err != nil || got.Status != store.StatusSucceeded {
		t.Errorf("ReadRun = %+v, %v; want succeeded", got, err)
	}
}

// fireWithAFullDisk fires f's request now on a ledger that takes its claim
// but not its outcome (the disk filled while it ran): the outcome is noted.
func (f *runFixture) fireWithAFullDisk(t *testing.T) {
	t.Helper()
	if res, err := Run(context.Background(), failingFinish{f.st}, nil, f.m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("fire with a full disk: %+v, %v", res, err)
	}
}
