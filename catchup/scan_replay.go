package catchup

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// replaySlot runs one missed slot: a crontab task through its crontab line
// (so that what runs is exactly what cron runs), an argv task through the
// run lifecycle in this process. Job output goes to stderr, keeping scan's
// stdout for its report.
func replaySlot(ctx context.Context, st store.Store, m Machine, t store.Task, sched *schedule.Schedule,
	sr *shellReplay, slot time.Time, span replaySpan, held *heldOutcome) (SlotAction, error) {
	m.Stdout = m.Stderr
	if t.Shell != "" {
		a, err := replayShell(ctx, m, t, sr, slot, span, nil)
		if err != nil || a.Action != ActionReplayed {
			return a, err
		}
		return readBack(ctx, st, t.Name, a), nil
	}
	l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{
		Task: t.Name, ReplaySlot: slot, Argv: t.Argv, Dir: t.Dir, Retries: t.Retries,
		RetryDelay: t.RetryDelay, Timeout: t.Timeout, KillAfter: t.KillAfter, NoCapture: t.NoCapture,
		NotifyCmd: t.NotifyCmd, Shared: st.Shared(), PrevSlot: span.prev, Coalesced: span.n,
		Fold: span.fold, FoldReason: span.reason,
	}, held: held}
	res, err := l.run(ctx)
	if err != nil {
		return SlotAction{}, err
	}
	a := slotAction(slot, res.ExitCode, res.Skipped, res.Run.ID)
	a.held = res.Skipped && res.Run.Status == store.StatusRunning
	a.folded = res.Folded
	return a, nil
}

// slotAction classifies a replay's exit status.
func slotAction(slot time.Time, code int, skipped bool, id int64) SlotAction {
	a := SlotAction{Slot: slot, ExitCode: code, RunID: id, Action: ActionReplayed}
	switch {
	case skipped || code == exitLocked:
		a.Action = ActionSkipped
		a.Reason = "not run: the slot was taken or the task was running"
	case code != 0:
		a.Action = ActionFailed
	}
	return a
}

// readBack checks a shell replay that exited 0 against the ledger. The
// line's `catchup run` exits 0 both when it ran the slot and when it found
// the slot held by a running run (another host's fire, which may yet give
// its claim back as a lock skip), and a line may record nothing at all, or
// hide a failure; its exit status cannot tell these apart. The slot counts
// as replayed only if the ledger holds a finished outcome for it that is not
// a failure (a failure makes it failed); otherwise it is skipped and held:
// the watermark stays below it, and the next scan reads it again.
// A ledger that cannot be read leaves it held too: the cost is one more
// look at the slot.
func readBack(ctx context.Context, st store.Store, task string, a SlotAction) SlotAction {
	runs, err := st.SlotRuns(ctx, task, a.Slot, a.Slot, 0)
	var running bool
	var last *store.Run // the latest finished run of the slot (runs come oldest first)
	for i, r := range runs {
		switch {
		case err != nil || !r.Slot.Equal(a.Slot):
		case r.Status == store.StatusRunning:
			running = true
		case r.Status != store.StatusFailed && r.Status != store.StatusTimeout && settles(r, MissedRule{}, nil):
			return a
		default:
			last = &runs[i]
		}
	}
	if last != nil && (last.Status == store.StatusFailed || last.Status == store.StatusTimeout) {
		// The line hid its run's failure (`...; true`): the slot failed,
		// and scan --retry-failed must still find it.
		a.Action, a.Reason = ActionFailed, "the line exited 0, but its run "+last.Status
		if last.ExitCode != nil {
			a.ExitCode = *last.ExitCode
		}
		return a
	}
	a.Action, a.held = ActionSkipped, true
	switch {
	case err != nil:
		a.Reason = fmt.Sprintf("the line exited 0, but its slot could not be read back (%v); the next scan looks again", err)
	case running:
		a.Reason = "not run here: another run holds the slot, running; the next scan looks again"
	default:
		a.Reason = "the line exited 0, but the ledger holds no outcome for the slot; the next scan replays it"
	}
	return a
}

// replayShell runs a crontab line's command part as cron would: /bin/sh -c,
// the crontab's variables, the user's home, the %-stdin; with
// CATCHUP_REPLAY_SLOT set so that the `catchup run` inside the line claims
// that slot with trigger replay.
func replayShell(ctx context.Context, m Machine, t store.Task, sr *shellReplay, slot time.Time, span replaySpan, extra []string) (SlotAction, error) {
	if sr == nil {
		sr = &shellReplay{err: fmt.Errorf("task %s has no command to replay", t.Name)}
	}
	cred, err := sr.credential()
	if sr.err != nil || err != nil {
		if sr.err != nil {
			err = sr.err
		}
		return SlotAction{Slot: slot, Action: ActionFailed, ExitCode: ExitInternal, Reason: err.Error()}, nil
	}
	env := append(append([]string{}, sr.env(m)...), "CATCHUP_REPLAY_SLOT="+slot.UTC().Format(time.RFC3339))
	if span.n > 0 {
		env = append(env, "CATCHUP_REPLAY_PREV_SLOT="+span.prev.UTC().Format(time.RFC3339),
			"CATCHUP_REPLAY_COALESCED="+strconv.Itoa(span.n))
	}
	env = append(env, extra...)
	cfg := runner.Config{Argv: []string{"/bin/sh", "-c", sr.command}, Dir: sr.dir, Env: env,
		Stdout: m.Stderr, Stderr: m.Stderr, Credential: cred}
	if sr.stdin != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return SlotAction{}, fmt.Errorf("replay %s: %w", t.Name, err)
		}
		go func() { w.WriteString(sr.stdin); w.Close() }()
		defer r.Close()
		cfg.Stdin = r
	}
	res, err := runner.Run(ctx, cfg)
	if err != nil {
		return SlotAction{}, fmt.Errorf("replay %s: %w", t.Name, err)
	}
	a := slotAction(slot, res.ExitCode, false, 0)
	if !res.Started && res.StartErr != nil {
		a.Reason = res.StartErr.Error()
	}
	return a, nil
}
