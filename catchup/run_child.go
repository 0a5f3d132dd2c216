package catchup

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// outcome turns the runner's result into the ledger's.
func outcome(res runner.Result, end time.Time) store.Outcome {
	o := store.Outcome{EndedAt: end, Signal: res.Signal, StdoutTail: res.StdoutTail, StderrTail: res.StderrTail,
		ExitCode: exitCodePtr(res.ExitCode)}
	switch {
	case !res.Started:
		o.Status = store.StatusFailed
		if res.StartErr != nil {
			o.Error = res.StartErr.Error()
		}
	case res.TimedOut:
		o.Status = store.StatusTimeout
	case res.ExitCode == 0:
		o.Status = store.StatusSucceeded
	default:
		o.Status = store.StatusFailed
	}
	return o
}

// execute runs the command for run r, with the lock passed down.
//
// held bounds the command (cancelled: SIGTERM to its group, SIGKILL after
// the grace); a stop signal to catchup reaches the command through the
// runner instead, which forwards it.
func (l *lifecycle) execute(ctx, held context.Context, lock *taskLock, r store.Run) runner.Result {
	if l.req.DirFromLedger && !stillSeen(l.req.Dir, l.req.DirSeen) {
		if err := trustedWorkDir(l.req.Dir, l.m.UID); err != nil {
			l.m.notice("task %s: %v", l.req.Task, err)
			return runner.Result{ExitCode: 126, StartErr: err}
		}
	}
	cfg := runner.Config{
		Argv: l.req.Argv, Dir: l.req.Dir, Env: l.childEnv(r), Stdin: l.m.Stdin, Stdout: l.m.Stdout, Stderr: l.m.Stderr,
		TailSize: tailSize, NoCapture: l.req.NoCapture, Timeout: l.req.Timeout, KillAfter: killGrace(l.req.KillAfter),
		Signals: l.m.JobSignals, OnSignal: l.m.Stop, OnStart: l.m.OnJobStart,
		// A stop that comes before the job started keeps it from starting
		// (held only ends a job that runs): looked at the last moment. One
		// that ends ctx only after (its signal came before the runner
		// caught signals, its handler ran late) is forwarded to the job.
		Stop: ctx, Gate: l.m.Starts, BeforeStart: l.m.BeforeJobStart, Kill: l.m.JobsKill,
		// On a shared ledger the lease ends with this process: a job that
		// outlived it could run beside the replay another host starts
		// once the lease has expired. A daemon's jobs die with it too.
		DieWithParent: l.st != nil && l.st.Shared() || l.m.JobsDieWithIt,
	}
	if lock != nil {
		cfg.ExtraFiles = []*os.File{lock.f}
	}
	if r.ID != 0 && l.st != nil {
		// The job reports progress through us: it needs no ledger
		// credentials (see progress_channel.go).
		pc, err := openProgressChannel(ctx, l.st, r.ID)
		if err != nil {
			l.m.notice("%v (catchup progress will reach the ledger directly)", err)
		} else {
			defer pc.close()
			cfg.Env = append(cfg.Env, EnvProgressFD+"="+strconv.Itoa(3+len(cfg.ExtraFiles)))
			cfg.ExtraFiles = append(cfg.ExtraFiles, pc.child)
		}
	}
	// The runner forwards signals to the command; catchup must outlive
	// them to record the outcome, so cancelling ctx does not kill the job.
	res, err := runner.Run(held, cfg)
	if err != nil {
		res = runner.Result{ExitCode: ExitInternal, StartErr: err}
	}
	if res.Started && l.m.OnJobEnd != nil {
		l.m.OnJobEnd(res.Pid)
	}
	if res.Stopped {
		l.m.notice("%s", l.stoppedBeforeStartLine(r))
		return res
	}
	if !res.Started && res.StartErr != nil {
		// It names the program, which may be a secret written in its place
		// (PGPASSWORD=X psql without sh -c or env).
		res.StartErr = redactedError{err: res.StartErr, argv: l.req.Argv}
		l.m.notice("%v", res.StartErr)
	}
	if res.TimedOut {
		l.m.notice("%s", timeoutLine(l.req.Task, l.req.Timeout, res.Signal))
	}
	switch {
	case res.Leftover > 0 && (ctx.Err() != nil || res.Forwarded != nil || held.Err() != nil):
		// Stopped (a stop signal to catchup or the daemon, the lease
		// lost): what outlived the job's own process ignored the stop.
		l.m.notice("task %s: stopped; %s of its group outlived the job, ignoring the stop signal: killed",
			l.req.Task, processes(res.Leftover))
	case res.Leftover > 0:
		l.m.notice("%s", leftoverLine(l.req.Task, res.Leftover))
	}
	return res
}

// stoppedBeforeStartLine says that a stop came while the job of run r was
// set up to start: it did not start, and its slot is left for the next
// scan (a daemon's next start), or backfill; a retry's to its failed attempt.
func (l *lifecycle) stoppedBeforeStartLine(r store.Run) string {
	line, shown := "task "+l.req.Task+": stopped before its job started: not run", formatSlot(r.Slot, l.sched)
	switch {
	case r.Attempt > 1:
		return "task " + l.req.Task + ": stopped before its retry started: not run; the failed attempt's outcome stands"
	case shown == "":
		return line
	case l.req.Backfill:
		return line + "; catchup backfill runs slot " + shown + " again"
	}
	return line + "; the next scan replays slot " + shown
}

// leftoverLine says that the run ended what its job left in its process
// group: a background child must not hold the task's lock or run beside
// the next run, here or on another host.
func leftoverLine(task string, n int) string {
	what := processes(n)
	return "task " + task + ": the job exited leaving " + what + " in its process group; stopped " +
		"(a daemon must leave the group: setsid cmd 3>&- &)"
}

// processes is "1 process", or "N processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}

// timeoutLine says why a job stopped, as timeout --verbose does: cron mail
// would otherwise show only the job's own last words.
func timeoutLine(task string, timeout time.Duration, signal int) string {
	how := "SIGTERM"
	if signal == int(syscall.SIGKILL) {
		how = "SIGTERM, then SIGKILL (it outlived --kill-after)"
	}
	return "task " + task + " timed out after " + FormatDuration(timeout) + " (--timeout): sent " + how + "; exit 124"
}

// hiddenFromJobs are the variables of catchup's environment that never
// reach a job, an alert or a replayed crontab line as they are: they
// locate or unlock the ledger and the monitor (CATCHUP_DB is given again,
// without its password), or belong to one run only.
// A switch, not a map: a package-level map is built at every process's
// start (docs/performance.md).
func hiddenFromJobs(name string) bool {
	switch name {
	case "CATCHUP_DB", "CATCHUP_DB_FILE", "CATCHUP_PING_URL", EnvProgressFD,
		"CATCHUP_REPLAY_SLOT", "CATCHUP_REPLAY_PREV_SLOT", "CATCHUP_REPLAY_COALESCED",
		"CATCHUP_BACKFILL_AFTER", "CATCHUP_REPLAY_AFTER", EnvLineReport, "CATCHUP_BACKFILL_FORCE", EnvBackfillSaid,
		"CATCHUP_CHECKPOINT", "CATCHUP_RESUMED", "CATCHUP_COALESCED":
		return true
	}
	return false
}

// jobEnviron is catchup's environment without hiddenFromJobs, nor any
// CATCHUP_REPLAY_* (scan's word to a replayed line's catchup run, never a
// job's).
func jobEnviron(m Machine) []string {
	env := make([]string, 0, len(m.Environ))
	for _, kv := range m.Environ {
		if k, _, _ := strings.Cut(kv, "="); !hiddenFromJobs(k) && !strings.HasPrefix(k, "CATCHUP_REPLAY_") {
			env = append(env, kv)
		}
	}
	return env
}

// childEnv is catchup's environment plus the run's CATCHUP_* variables.
// CATCHUP_DB is the ledger without its password: the job's `catchup
// progress` reports through this process instead (CATCHUP_PROGRESS_FD).
func (l *lifecycle) childEnv(r store.Run) []string {
	var slot, slotUnix, prev string
	if !r.Slot.IsZero() {
		slot, slotUnix = formatSlot(r.Slot, l.sched), strconv.FormatInt(r.Slot.Unix(), 10)
		switch {
		case !l.req.PrevSlot.IsZero():
			prev = formatSlot(l.req.PrevSlot, l.sched) // a coalesced replay: the whole gap
		case l.sched != nil:
			if p, ok := l.sched.Prev(r.Slot.Add(-time.Second)); ok {
				prev = formatSlot(p, l.sched)
			}
		}
	}
	set := map[string]string{
		"CATCHUP_TASK": r.Task, "CATCHUP_RUN_ID": strconv.FormatInt(r.ID, 10),
		"CATCHUP_SLOT": slot, "CATCHUP_SLOT_UNIX": slotUnix, "CATCHUP_PREV_SLOT": prev,
		"CATCHUP_TRIGGER": r.Trigger, "CATCHUP_ATTEMPT": strconv.Itoa(r.Attempt), "CATCHUP_DB": store.WithoutPassword(l.m.DB),
	}
	env := make([]string, 0, len(l.m.Environ)+len(set)+2)
	for _, kv := range jobEnviron(l.m) {
		if k, _, _ := strings.Cut(kv, "="); !hasKey(set, k) {
			env = append(env, kv)
		}
	}
	if l.checkpoint != "" {
		env = append(env, "CATCHUP_CHECKPOINT="+l.checkpoint, "CATCHUP_RESUMED=1")
	}
	if l.req.Coalesced > 0 {
		env = append(env, "CATCHUP_COALESCED="+strconv.Itoa(l.req.Coalesced))
	}
	for _, k := range []string{"CATCHUP_TASK", "CATCHUP_RUN_ID", "CATCHUP_SLOT", "CATCHUP_SLOT_UNIX",
		"CATCHUP_PREV_SLOT", "CATCHUP_TRIGGER", "CATCHUP_ATTEMPT", "CATCHUP_DB"} {
		env = append(env, k+"="+set[k])
	}
	return env
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// formatSlot renders a slot in RFC 3339 in the schedule's zone (in UTC
// when RFC 3339 cannot write the zone's offset: schedule.RFC3339).
func formatSlot(t time.Time, s *schedule.Schedule) string {
	if t.IsZero() {
		return ""
	}
	var loc *time.Location
	if s != nil {
		loc = s.Location()
	}
	return schedule.RFC3339(t, loc)
}

// killGrace is the runner's KillAfter for a task's: the task's 0 is a
// value (SIGKILL right after SIGTERM), not "the default".
func killGrace(d time.Duration) time.Duration {
	if d == 0 {
		return runner.NoGrace
	}
	return d
}

// redactedError is an error whose text has the shapes of a secret masked
// (catchup/redact); errors.Is and As still see the original. The program
// it names (argv[0], as written and as exec quotes it) is masked as the
// registered argv is first: a command line written as one word ("mysql
// -pX db") has its program's own options masked there, which the error's
// text, led by "start", is no command line to show.
type redactedError struct {
	err  error
	argv []string
}

func (e redactedError) Error() string {
	text := e.err.Error()
	if len(e.argv) > 0 {
		if word, masked := e.argv[0], redact.Argv(e.argv)[0]; masked != word {
			text = strings.ReplaceAll(text, strconv.Quote(word), strconv.Quote(masked))
			text = strings.ReplaceAll(text, word, masked)
		}
	}
	return redact.Command(text)
}
func (e redactedError) Unwrap() error { return e.err }
