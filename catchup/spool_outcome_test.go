package catchup

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// failingFinish is a ledger that takes claims but no outcome: its disk
// filled while the job ran.
type failingFinish struct{ store.Store }

func (failingFinish) Finish(context.Context, int64, store.Outcome) error {
	return errors.New("database or disk is full")
}

// TestOutcomeNotedWhenUnrecorded: a run whose claim was recorded but whose
// outcome could not be (the disk filled while its job ran) keeps a note of
// the outcome; the next scan records it, and does not replay the slot,
// which ran and succeeded.
func TestOutcomeNotedWhenUnrecorded(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	if res, err := Run(context.Background(), failingFinish{f.st}, nil, m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("fire with a full disk: %+v, %v", res, err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Errorf("scan: missed %v; want none (10:00 ran and succeeded; its outcome was noted)", ts.Missed)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
	runs := f.history(t)
	if last := runs[len(runs)-1]; last.Status != store.StatusSucceeded || !last.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) {
		t.Errorf("the 10:00 run is recorded %s (slot %s); want succeeded", last.Status, last.Slot)
	}
}

// flakyRun is a ledger that cannot read a run back for a moment.
type flakyRun struct{ store.Store }

func (flakyRun) Run(context.Context, int64) (store.Run, error) {
	return store.Run{}, errors.New("connection reset by peer")
}

// TestOutcomeNoteKeptOnAReadError: an outcome note that a scan cannot
// check against its run (the ledger failed the read) is kept for the next
// scan, never dropped: dropped, the run is taken for interrupted and its
// slot, which ran, runs again.
func TestOutcomeNoteKeptOnAReadError(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	if res, err := Run(context.Background(), failingFinish{f.st}, nil, m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("fire with a full disk: %+v, %v", res, err)
	}
	if _, err := importSpool(context.Background(), flakyRun{f.st}, f.m, DefaultTolerance, nil); err == nil {
		t.Error("import with a failing read: no error")
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	f.scan(t, scanRequest())
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
}

// TestOutcomeNoteLandsOnAnInterruptedRun: a noted outcome whose run another
// host's scan has meanwhile marked interrupted (its lease ran out while the
// outcome could not be written) is recorded on the run, as a late outcome
// over a reconnection is: dropped, the run stayed interrupted for good
// though it succeeded, and its slot was replayed.
func TestOutcomeNoteLandsOnAnInterruptedRun(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	res, err := Run(context.Background(), failingFinish{f.st}, nil, m, f.request(t))
	if err != nil || !res.Ran {
		t.Fatalf("fire with a failing outcome write: %+v, %v", res, err)
	}
	if _, err := f.st.Interrupt(context.Background(), res.Run.ID, mustTime(t, "2026-03-01T10:05:00Z"), "no heartbeat from h2 for longer than the lease"); err != nil {
		t.Fatal(err)
	}
	if _, err := importSpool(context.Background(), f.st, f.m, DefaultTolerance, nil); err != nil {
		t.Fatalf("import: %v", err)
	}
	r, err := f.st.Run(context.Background(), res.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.StatusSucceeded {
		t.Errorf("run %d is %s after its note was read; want succeeded (its own outcome)", r.ID, r.Status)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	f.scan(t, scanRequest())
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
}

// TestNotedRunIsNotTakenForDead: a run whose outcome is noted on the host
// (its ledger write failed; its lock is free once it ended) is not marked
// interrupted by a scan that read the notes before that note was written
// (a daemon's scans of other tasks run beside its fires): the note says
// how it ended, and the next scan records it. Before, the scan found the
// run's lock free, marked it interrupted and replayed its slot, which had
// run and succeeded (found by review: a slot ran twice after an outage).
func TestNotedRunIsNotTakenForDead(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	res, err := Run(context.Background(), failingFinish{f.st}, nil, m, f.request(t))
	if err != nil || !res.Ran {
		t.Fatalf("fire with a failing outcome write: %+v, %v", res, err)
	}
	f.now = mustTime(t, "2026-03-01T10:01:00Z")
	stale, err := findStale(context.Background(), f.st, f.m, true)
	if err != nil {
		t.Fatal(err)
	}
	if stale[res.Run.ID] {
		t.Errorf("run %d, its outcome noted, was taken for dead", res.Run.ID)
	}
	if r, err := f.st.Run(context.Background(), res.Run.ID); err != nil || r.Status != store.StatusRunning {
		t.Errorf("run %d is %s (%v); want running until its note is recorded", res.Run.ID, r.Status, err)
	}
}
