package catchup

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// runFixture is a real SQLite ledger, a fake machine whose clock the test
// moves, and the slotLog job in a directory of its own.
type runFixture struct {
	st  *sqlite.Ledger
	m   Machine
	job slotLog
	now time.Time
}

func newRunFixture(t testing.TB, now string) *runFixture {
	t.Helper()
	st, db := testLedger(t)
	f := &runFixture{st: st, job: slotLog{dir: t.TempDir()}, now: mustTime(t, now)}
	f.m = testMachine(db, f.now)
	f.m.Now = func() time.Time { return f.now }
	return f
}

// request is an hourly (UTC) fire of task "job" running the slotLog job.
func (f *runFixture) request(t *testing.T) RunRequest {
	t.Helper()
	return RunRequest{Task: "job", Schedule: mustSchedule(t, "0 * * * *", "UTC"), TZ: "UTC", Replay: "all",
		Tolerance: 5 * time.Minute, KillAfter: time.Second, Argv: f.job.argv(), Dir: f.job.dir}
}

// run fires req and fails the test on an error.
func (f *runFixture) run(t *testing.T, req RunRequest) RunResult {
	t.Helper()
	res, err := Run(context.Background(), f.st, nil, f.m, req)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// history returns the task's runs, oldest first.
func (f *runFixture) history(t *testing.T) []store.Run {
	t.Helper()
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	return runs
}

func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		argv     []string // nil: the slotLog job
		timeout  time.Duration
		wantExit int
		wantStat string
		wantRan  bool
	}{
		"success":                   {wantExit: 0, wantStat: store.StatusSucceeded, wantRan: true},
		"failure":                   {argv: []string{"false"}, wantExit: 1, wantStat: store.StatusFailed, wantRan: true},
		"exit status passes":        {argv: []string{"sh", "-c", "exit 3"}, wantExit: 3, wantStat: store.StatusFailed, wantRan: true},
		"timeout":                   {argv: []string{"sleep", "30"}, timeout: 100 * time.Millisecond, wantExit: 124, wantStat: store.StatusTimeout, wantRan: true},
		"command not found":         {argv: []string{"no-such-command-anywhere"}, wantExit: 127, wantStat: store.StatusFailed},
		"command not an executable": {argv: []string{"/"}, wantExit: 126, wantStat: store.StatusFailed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Timeout = tc.timeout
			if tc.argv != nil {
				req.Argv = tc.argv
			}
			res := f.run(t, req)
			if res.ExitCode != tc.wantExit || res.Ran != tc.wantRan || res.Skipped {
				t.Fatalf("exit %d, ran %v, skipped %v; want exit %d, ran %v", res.ExitCode, res.Ran, res.Skipped, tc.wantExit, tc.wantRan)
			}
			rec, err := f.st.Run(context.Background(), res.Run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != tc.wantStat || rec.ExitCode == nil || *rec.ExitCode != tc.wantExit {
				t.Errorf("recorded %s exit %v, want %s exit %d", rec.Status, exitText(rec.ExitCode), tc.wantStat, tc.wantExit)
			}
			if want := mustTime(t, "2026-03-01T10:00:00Z"); !rec.Slot.Equal(want) || rec.Trigger != store.TriggerSchedule {
				t.Errorf("recorded slot %v trigger %s, want %v schedule", rec.Slot, rec.Trigger, want)
			}
			if rec.Host != "testhost" || rec.BootID != "boot-1" || rec.EndedAt.IsZero() {
				t.Errorf("record %+v lacks the machine's host, boot or end", rec)
			}
		})
	}
}

func TestRunRegistersTheTask(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.run(t, f.request(t))
	task, err := f.st.Task(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	slot := mustTime(t, "2026-03-01T10:00:00Z")
	if task.Schedule != "0 * * * *" || task.TZ != "UTC" || task.Replay != "all" || task.Source != "run" ||
		task.Dir != f.job.dir || strings.Join(task.Argv, " ") != strings.Join(f.job.argv(), " ") {
		t.Errorf("registered %+v", task)
	}
	if !task.RegisteredAt.Equal(slot) || !task.SettledThrough.Equal(slot.Add(-time.Second)) {
		t.Errorf("registered at %v, settled through %v; want the first slot %v and a second before", task.RegisteredAt, task.SettledThrough, slot)
	}
}

func TestRunLockHeld(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	lock, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := lock.tryLock(); !ok || err != nil {
		t.Fatalf("tryLock = %v, %v", ok, err)
	}
	res := f.run(t, f.request(t))
	if res.ExitCode != exitLocked || !res.Skipped || res.Ran {
		t.Fatalf("exit %d, skipped %v, ran %v; want %d, skipped, not run", res.ExitCode, res.Skipped, res.Ran, exitLocked)
	}
	if runs := f.job.runs(t); runs != nil {
		t.Fatalf("the job ran beside the lock holder: %q", runs)
	}
	rec, err := f.st.Run(context.Background(), res.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != store.StatusSkipped || rec.Error != reasonLocked || exitText(rec.ExitCode) != "75" {
		t.Errorf("recorded %s %q exit %s; want a lock skip with exit 75", rec.Status, rec.Error, exitText(rec.ExitCode))
	}

	lock.close()
	if res := f.run(t, f.request(t)); res.ExitCode != 0 || !res.Ran {
		t.Fatalf("after the lock was freed: exit %d, ran %v", res.ExitCode, res.Ran)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("job runs %q, want one", runs)
	}
}

func TestRunSlotAlreadyDone(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	first := f.run(t, f.request(t))
	f.now = mustTime(t, "2026-03-01T10:02:00Z") // cron fired twice, or a replay raced the fire
	again := f.run(t, f.request(t))
	if again.ExitCode != 0 || !again.Skipped || again.Ran || again.Run.ID != first.Run.ID {
		t.Fatalf("second fire: %+v; want exit 0, skipped, not run, holder run %d", again, first.Run.ID)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Fatalf("job runs %q, want one", runs)
	}
	req := f.request(t)
	req.Force = true
	if res := f.run(t, req); !res.Ran || res.ExitCode != 0 {
		t.Fatalf("--force: %+v; want it run", res)
	}
	if runs := f.job.runs(t); len(runs) != 2 {
		t.Errorf("job runs %q, want two with --force", runs)
	}
}

func TestRunFailedSlotRunsAgain(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.job.exitAt(t, mustTime(t, "2026-03-01T10:00:00Z"), 4)
	if res := f.run(t, f.request(t)); res.ExitCode != 4 {
		t.Fatalf("exit %d, want 4", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T10:02:00Z") // by hand: a retry, not the slot's twin
	if res := f.run(t, f.request(t)); res.ExitCode != 4 || !res.Ran {
		t.Fatalf("a failed slot must not block a retry by hand: %+v", res)
	}
}

func TestRunRetries(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.job.exitAt(t, mustTime(t, "2026-03-01T10:00:00Z"), 1)
	req := f.request(t)
	req.Retries, req.RetryDelay = 2, time.Millisecond
	if res := f.run(t, req); res.ExitCode != 1 || res.Run.Attempt != 3 {
		t.Fatalf("exit %d after attempt %d; want 1 after attempt 3", res.ExitCode, res.Run.Attempt)
	}
	var got []string
	for _, r := range f.history(t) {
		got = append(got, r.Trigger+" "+r.Status)
	}
	if want := "schedule failed,retry failed,retry failed"; strings.Join(got, ",") != want {
		t.Errorf("attempts %q, want %q", got, want)
	}
}

func TestRunSlotChecks(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		slot       string
		registered bool // the schedule comes from the ledger, not the request
		wantErr    string
		wantRun    string // the job's line when it runs
	}{
		"explicit slot":                       {slot: "2026-03-01T08:00:00Z", wantRun: "2026-03-01T08:00:00Z manual"},
		"future slot":                         {slot: "2026-03-01T11:00:00Z", wantErr: "is in the future"},
		"not a slot of the schedule":          {slot: "2026-03-01T08:30:00Z", wantErr: `is not a slot of "0 * * * *" in UTC; the nearest slots are 2026-03-01T08:00:00Z and 2026-03-01T09:00:00Z`},
		"not a slot of the registered one":    {slot: "2026-03-01T08:30:00Z", registered: true, wantErr: `is not a slot of "0 * * * *" in UTC`},
		"explicit slot of the registered one": {slot: "2026-03-01T07:00:00Z", registered: true, wantRun: "2026-03-01T07:00:00Z manual"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			if tc.registered {
				req.Argv = []string{"true"}
				f.run(t, req)
				req.Argv, req.Schedule, req.TZ = f.job.argv(), nil, ""
			}
			req.Slot = mustTime(t, tc.slot)
			res, err := Run(context.Background(), f.st, nil, f.m, req)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || res.ExitCode != ExitInternal {
					t.Fatalf("Run = exit %d, %v; want exit %d and %q", res.ExitCode, err, ExitInternal, tc.wantErr)
				}
				if runs := f.job.runs(t); runs != nil {
					t.Errorf("the job ran: %q", runs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if runs := f.job.runs(t); len(runs) != 1 || runs[0] != tc.wantRun {
				t.Errorf("job runs %q, want %q", runs, tc.wantRun)
			}
		})
	}
}

func TestRunReplayKeepsTheRegistration(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.run(t, f.request(t))
	req := f.request(t)
	req.Schedule = mustSchedule(t, "*/5 * * * *", "Europe/Berlin") // the replayed line's flags
	req.TZ = "Europe/Berlin"
	req.ReplaySlot = mustTime(t, "2026-03-01T08:00:00Z")
	if res := f.run(t, req); res.ExitCode != 0 || res.Run.Trigger != store.TriggerReplay {
		t.Fatalf("replay: %+v", res)
	}
	task, err := f.st.Task(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if task.Schedule != "0 * * * *" || task.TZ != "UTC" {
		t.Errorf("a replay re-registered the task: %q in %q", task.Schedule, task.TZ)
	}
	if runs := f.job.runs(t); len(runs) != 2 || runs[1] != "2026-03-01T08:00:00Z replay" {
		t.Errorf("job runs %q, want the replay of 08:00 in the registered zone", runs)
	}
}

func TestRunWithoutLedger(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		strict, shared, failOpen bool
		wantExit                 int
		wantErr                  bool
		wantRan                  bool
	}{
		"runs unrecorded":              {wantExit: 0, wantRan: true},
		"--strict does not run":        {strict: true, wantExit: ExitInternal, wantErr: true},
		"shared ledger: not run":       {shared: true, wantExit: exitLocked},
		"shared ledger with fail-open": {shared: true, failOpen: true, wantExit: 0, wantRan: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Strict, req.Shared, req.FailOpen = tc.strict, tc.shared, tc.failOpen
			res, err := Run(context.Background(), nil, errors.New("disk gone"), f.m, req)
			if (err != nil) != tc.wantErr || res.ExitCode != tc.wantExit || res.Ran != tc.wantRan {
				t.Fatalf("Run = %+v, %v; want exit %d, error %v, ran %v", res, err, tc.wantExit, tc.wantErr, tc.wantRan)
			}
			runs := f.job.runs(t)
			if tc.wantRan && (len(runs) != 1 || runs[0] != "2026-03-01T10:00:00Z schedule") {
				t.Errorf("job runs %q, want the 10:00 slot once", runs)
			}
			if !tc.wantRan && runs != nil {
				t.Errorf("job ran: %q", runs)
			}
		})
	}
}

func exitText(code *int) string {
	if code == nil {
		return "none"
	}
	return strconv.Itoa(*code)
}
