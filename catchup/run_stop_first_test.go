package catchup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// stopAtStart makes f's machine cancel the returned context as the job of
// its nth start (from 1) is set up, as a stop signal's handler does while
// the runner sets the job up (its pipes, its environment).
func stopAtStart(f *runFixture, nth int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	f.m.BeforeJobStart = func() {
		if n++; n == nth {
			cancel()
		}
	}
	return ctx
}

// TestStopBeforeTheJobStartsRunsNothing: a stop (SIGTERM to catchup run,
// or to a scan) that comes while the job is set up to start keeps it from
// starting: the fire's run is recorded interrupted with no exit status,
// having run nothing, and the next scan replays its slot once. Before, the
// runner looked at the stop before the set-up only, and never at the fire's
// own context (which does not end a job that runs): the job started after
// the stop, to die of the signal forwarded to it, or, when the signal came
// before the runner caught signals, to run on unstopped.
func TestStopBeforeTheJobStartsRunsNothing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	res, err := Run(stopAtStart(f, 1), f.st, nil, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran || !res.Stopped || res.ExitCode != 125 {
		t.Fatalf("Ran=%v Stopped=%v exit %d; want not run, stopped, 125 (cmd exits 128+N for the signal)", res.Ran, res.Stopped, res.ExitCode)
	}
	if got := f.job.runs(t); len(got) != 0 {
		t.Fatalf("the job ran after the stop: %q", got)
	}
	runs := f.history(t)
	if len(runs) != 1 || runs[0].Status != store.StatusInterrupted || runs[0].ExitCode != nil || runs[0].Error != errStoppedBeforeStart {
		t.Fatalf("recorded %+v; want one run, interrupted, no exit status, %q", runs, errStoppedBeforeStart)
	}

	f.m.BeforeJobStart = nil
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	f.scan(t, scanRequest())
	f.scan(t, scanRequest())
	if got, want := f.job.runs(t), []string{"2026-03-01T10:00:00Z replay"}; !slices.Equal(got, want) {
		t.Fatalf("after two scans the job ran %q, want %q (the slot replayed once)", got, want)
	}
}

// TestScanStopBeforeItsReplayStartsRunsNothing: a scan's stop that comes
// while its replay's job is set up: the replay does not start, is
// reported interrupted with no exit status, no later replay starts, and
// the next scan replays each slot once.
func TestScanStopBeforeItsReplayStartsRunsNothing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T12:30:00Z") // 11:00 and 12:00 missed
	rep, err := Scan(stopAtStart(f, 1), f.st, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.job.runs(t); !slices.Equal(got, []string{"2026-03-01T10:00:00Z schedule"}) {
		t.Fatalf("the scan's replays ran after its stop: %q", got)
	}
	var ts *TaskScan
	for i := range rep.Tasks {
		if rep.Tasks[i].Task == "job" {
			ts = &rep.Tasks[i]
		}
	}
	if ts == nil || len(ts.Actions) != 1 || ts.Actions[0].Action != ActionInterrupted || !ts.Actions[0].NoExit ||
		ts.Actions[0].Reason != reasonStoppedFirst {
		t.Fatalf("report %+v; want 11:00 interrupted, no exit status (%q), and no later replay", ts, reasonStoppedFirst)
	}

	f.m.BeforeJobStart = nil
	f.scan(t, scanRequest())
	f.scan(t, scanRequest())
	want := []string{"2026-03-01T10:00:00Z schedule", "2026-03-01T11:00:00Z replay", "2026-03-01T12:00:00Z replay"}
	if got := f.job.runs(t); !slices.Equal(got, want) {
		t.Fatalf("after two more scans the job ran %q, want %q", got, want)
	}
}

// TestStopBeforeARetryStartsCutsIt: a stop that comes while a retry's job
// is set up cuts the retry as one in its delay: recorded interrupted,
// reason retry-cut, and the fire's outcome is its failed attempt's.
func TestStopBeforeARetryStartsCutsIt(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Retries = 1
	f.job.exitAt(t, mustTime(t, "2026-03-01T10:00:00Z"), 3)
	res, err := Run(stopAtStart(f, 2), f.st, nil, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped || res.ExitCode != 3 {
		t.Fatalf("Stopped=%v exit %d; want the failed attempt's outcome, exit 3", res.Stopped, res.ExitCode)
	}
	if got := f.job.runs(t); len(got) != 1 {
		t.Fatalf("the job ran %q; want once (the retry never started)", got)
	}
	runs := f.history(t)
	if len(runs) != 2 || runs[0].Status != store.StatusFailed || runs[1].Status != store.StatusInterrupted ||
		runs[1].Reason != store.ReasonRetryCut {
		t.Fatalf("recorded %+v; want the attempt failed, its retry interrupted (%s)", runs, store.ReasonRetryCut)
	}
}

// TestCrontabLineStoppedBeforeItStartsRunsNothing: a scan's stop that comes
// while a crontab line's replay is set up keeps the line from starting:
// nothing ran nor was recorded, the replay is reported interrupted with no
// exit status (not a failure, nor a slot held elsewhere), and the slot
// stays missed for the next scan.
func TestCrontabLineStoppedBeforeItStartsRunsNothing(t *testing.T) {
	t.Parallel()
	st, db := testLedger(t)
	dir := t.TempDir()
	slot := mustTime(t, "2026-03-01T11:00:00Z")
	m := testMachine(db, slot.Add(30*time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.BeforeJobStart = cancel
	line := `: > "` + filepath.Join(dir, "started") + `"`
	sr := &shellReplay{command: line, dir: dir}
	a, err := replayLine(ctx, st, m, store.Task{Name: "job", Shell: line}, sr, slot, replaySpan{}, nil, "the next scan looks again")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Fatal("the line ran after the scan's stop")
	}
	if a.Action != ActionInterrupted || !a.NoExit || a.held || a.Reason != reasonStoppedFirst {
		t.Fatalf("replay reported %+v; want interrupted, no exit status, %q", a, reasonStoppedFirst)
	}
}

// TestBackfillStopBeforeItsSlotStartsRunsNothing: a backfill's stop that
// comes while a slot's job is set up: the slot does not run, is reported
// interrupted with no exit status, the later one left; a backfill again
// runs each once.
func TestBackfillStopBeforeItsSlotStartsRunsNothing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T09:30:00Z")
	req := BackfillRequest{Tasks: []string{"job"}, From: mustTime(t, "2026-03-01T07:00:00Z"),
		To: mustTime(t, "2026-03-01T08:00:00Z"), Only: "missing", Order: "oldest", Concurrency: 1}
	reps, err := Backfill(stopAtStart(f, 1), f.st, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].Interrupted != 1 || reps[0].Left != 1 || reps[0].Ran != 0 ||
		reps[0].Actions[0].Action != ActionInterrupted || !reps[0].Actions[0].NoExit {
		t.Fatalf("report %+v; want 07:00 interrupted with no exit status, 08:00 left", reps)
	}
	if got := f.job.runs(t); len(got) != 1 {
		t.Fatalf("the job ran after the backfill's stop: %q", got)
	}
	f.m.BeforeJobStart = nil
	for range 2 {
		if _, err := Backfill(context.Background(), f.st, f.m, req); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"2026-03-01T09:00:00Z schedule", "2026-03-01T07:00:00Z backfill", "2026-03-01T08:00:00Z backfill"}
	if got := f.job.runs(t); !slices.Equal(got, want) {
		t.Fatalf("after two more backfills the job ran %q, want %q", got, want)
	}
}
