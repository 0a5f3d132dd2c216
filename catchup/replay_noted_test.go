package catchup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// TestReplayOfASlotNotedSinceItsScanPlanned: the 10:00 fire's outcome
// could not be recorded (the disk filled; the ledger file replaced while
// it ran, by a copy made then or by a backup made before its claim), and
// was noted on the host as it ended, while it held the task's lock. A scan
// had recorded the notes, and planned, while it ran: so the scan, which
// took 10:00 for missed (no claim in the backup) or for a dead run (its
// claim running, the lock free), replays it once the lock is free. The
// replay must find the note, as a fire does, and run nothing: the next
// scan records the note, and the slot ran once (CI: a daemon's scan ran a
// slot a second time so, its fire's outcome noted after the scan read the
// notes).
func TestReplayOfASlotNotedSinceItsScanPlanned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(f *runFixture) store.Store // the 10:00 fire's ledger
		runs  int                             // the 10:00 slot's records once the next scan recorded the note
	}{
		{name: "outcome_noted_full_disk", runs: 1,
			fault: func(f *runFixture) store.Store { return failingFinish{f.st} }},
		{name: "moved_claim_copied", runs: 1,
			fault: func(f *runFixture) store.Store { return movedFinish{f.st} }},
		{name: "moved_backup_before_the_claim", runs: 1,
			fault: func(f *runFixture) store.Store {
				replaced, _ := testLedger(t) // the file the claim went to, gone since
				return movedFinish{replaced}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			f.run(t, f.request(t))
			f.now = mustTime(t, "2026-03-01T10:00:30Z")
			if res, err := Run(context.Background(), tc.fault(f), nil, f.m, f.request(t)); err != nil || !res.Ran {
				t.Fatalf("the 10:00 fire, its outcome noted: %+v, %v", res, err)
			}
			f.now = mustTime(t, "2026-03-01T10:20:00Z")
			replay := f.request(t)
			replay.ReplaySlot = mustTime(t, "2026-03-01T10:00:00Z")
			res := f.run(t, replay)
			if res.Ran {
				t.Errorf("the replay of 10:00, noted since its scan planned, ran it again: %+v", res)
			}
			if got := f.job.runs(t); len(got) != 2 {
				t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
			}
			if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
				t.Errorf("the next scan: missed %v; want none (10:00 ran and succeeded)", ts.Missed)
			}
			if got := f.job.runs(t); len(got) != 2 {
				t.Errorf("after the next scan, the job ran %d times, want 2: %v", len(got), got)
			}
			checkSlotRecords(t, "the ledger after the next scan", f.history(t), tc.runs)
		})
	}
}

// TestScanLeavesASlotNotedMeanwhileToTheNextScan: a scan plans the missed
// 10:00, and before its replay starts, a late fire of 10:00 runs it, its
// outcome noted (the disk full). The replay runs nothing and says why; the
// next scan records the note and finds nothing missed.
func TestScanLeavesASlotNotedMeanwhileToTheNextScan(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	f.now = mustTime(t, "2026-03-01T10:20:00Z")
	req := scanRequest()
	fired := false
	req.Replays.Start = func(task string, slot time.Time) {
		if fired {
			return
		}
		fired = true
		if res, err := Run(context.Background(), failingFinish{f.st}, nil, f.m, f.request(t)); err != nil || !res.Ran {
			t.Errorf("the late fire of 10:00, its outcome noted: %+v, %v", res, err)
		}
	}
	ts := f.scan(t, req)
	if len(ts.Actions) != 1 || ts.Actions[0].Action != ActionSkipped || !strings.Contains(ts.Actions[0].Reason, "noted on this host") {
		t.Fatalf("the scan's replay of 10:00: %+v; want it skipped, noted meanwhile", ts.Actions)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Errorf("the next scan: missed %v; want none", ts.Missed)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
	checkSlotRecords(t, "the ledger after the next scan", f.history(t), 1)
}

// TestScanKeepsASlotNotedMeanwhileUnsettled: as above, but the late fire
// of 10:00 fails, and its claim went to a ledger file replaced since (no
// record of it in the file now there). The scan's replay runs nothing and
// does not settle 10:00: the watermark stays below it, so that the next
// scan, which records the note, retries the failure under --retry-failed.
func TestScanKeepsASlotNotedMeanwhileUnsettled(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	ten := mustTime(t, "2026-03-01T10:00:00Z")
	f.job.exitAt(t, ten, 3)
	f.now = mustTime(t, "2026-03-01T10:20:00Z")
	// The file the late fire's claim went to: a copy of the ledger, gone
	// since (a backup made before the claim restored over it).
	copied := filepath.Join(t.TempDir(), "copy.db")
	if err := f.st.Backup(context.Background(), copied); err != nil {
		t.Fatal(err)
	}
	replaced, err := sqlite.Open(context.Background(), copied)
	if err != nil {
		t.Fatal(err)
	}
	defer replaced.Close()
	req := scanRequest()
	req.RetryFailed = true
	fired := false
	req.Replays.Start = func(task string, slot time.Time) {
		if !fired {
			fired = true
			if res, err := Run(context.Background(), movedFinish{replaced}, nil, f.m, f.request(t)); err != nil || !res.Ran || res.ExitCode != 3 {
				t.Errorf("the late fire of 10:00, failed and noted: %+v, %v", res, err)
			}
		}
	}
	if ts := f.scan(t, req); len(ts.Actions) != 1 || ts.Actions[0].Action != ActionSkipped {
		t.Fatalf("the scan's replay of 10:00: %+v; want it skipped, noted meanwhile", ts.Actions)
	}
	task, err := f.st.Task(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if !task.SettledThrough.Before(ten) {
		t.Errorf("the watermark passed 10:00 (%s), whose noted run failed", task.SettledThrough)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	next := scanRequest()
	next.RetryFailed = true
	if ts := f.scan(t, next); len(ts.Missed) != 1 || !ts.Missed[0].Equal(ten) {
		t.Errorf("the next scan under --retry-failed: missed %v; want 10:00, whose noted run failed", ts.Missed)
	}
}
