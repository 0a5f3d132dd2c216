package catchup

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

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
func (l *lifecycle) execute(ctx context.Context, lock *taskLock, r store.Run) runner.Result {
	cfg := runner.Config{
		Argv: l.req.Argv, Dir: l.req.Dir, Env: l.childEnv(r), Stdin: l.m.Stdin, Stdout: l.m.Stdout, Stderr: l.m.Stderr,
		TailSize: tailSize, NoCapture: l.req.NoCapture, Timeout: l.req.Timeout, KillAfter: l.req.KillAfter,
	}
	if lock != nil {
		cfg.ExtraFiles = []*os.File{lock.f}
	}
	// The runner forwards signals to the command; catchup must outlive
	// them to record the outcome, so cancelling ctx does not kill the job.
	res, err := runner.Run(context.WithoutCancel(ctx), cfg)
	if err != nil {
		res = runner.Result{ExitCode: ExitInternal, StartErr: err}
	}
	if !res.Started && res.StartErr != nil {
		l.m.notice("%v", res.StartErr)
	}
	return res
}

// childEnv is catchup's environment plus the run's CATCHUP_* variables.
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
		"CATCHUP_TRIGGER": r.Trigger, "CATCHUP_ATTEMPT": strconv.Itoa(r.Attempt), "CATCHUP_DB": l.m.DB,
	}
	env := make([]string, 0, len(l.m.Environ)+len(set)+2)
	for _, kv := range l.m.Environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; ours || strings.HasPrefix(k, "CATCHUP_REPLAY_") || k == "CATCHUP_CHECKPOINT" ||
			k == "CATCHUP_RESUMED" || k == "CATCHUP_COALESCED" {
			continue
		}
		env = append(env, kv)
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

// formatSlot renders a slot in RFC 3339 in the schedule's zone.
func formatSlot(t time.Time, s *schedule.Schedule) string {
	if t.IsZero() {
		return ""
	}
	if s != nil {
		t = t.In(s.Location())
	}
	return t.Format(time.RFC3339)
}
