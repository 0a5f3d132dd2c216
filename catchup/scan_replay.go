package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/internal/termsafe"
	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// replaySlot runs one missed slot: a crontab task through its crontab line
// (so that what runs is exactly what cron runs), an argv task through the
// run lifecycle in this process. Job output goes to stderr, keeping scan's
// stdout for its report. read is the newest run id the scan read of the
// task: a run of the slot made since (another scan's) settles it. seen is
// the task's directory as the scan's check saw it (RunRequest.DirSeen).
func replaySlot(ctx context.Context, st store.Store, m Machine, t store.Task, sched *schedule.Schedule,
	sr *shellReplay, slot time.Time, span replaySpan, held *heldOutcome, read int64, seen os.FileInfo) (SlotAction, error) {
	m.Stdout = m.Stderr
	if t.Shell != "" {
		env := []string{"CATCHUP_REPLAY_AFTER=" + strconv.FormatInt(read, 10), registeredEnv(t)}
		if !t.UpdatedAt.IsZero() {
			env = append(env, updatedEnv(t))
		}
		a, err := replayLine(ctx, st, m, t, sr, slot, span, env, "the next scan looks again")
		if err == nil && a.held && !a.running {
			// The line ran nothing: its claim may have found the task
			// purged meanwhile (store.ClaimResult.Gone).
			a.gone = goneSince(ctx, st, t)
		}
		if err == nil && !a.gone && !a.running && !a.ran && a.Action == ActionSkipped {
			// Or retired (store.ClaimResult.Retired), its slot maybe
			// recorded expired by the retirement.
			a.retired = retiredSince(ctx, st, t)
		}
		if err == nil && a.held && !a.running && !a.lineSkip && !a.lockSkipped && !a.gone && !a.retired {
			// Or registered again (store.ClaimResult.Changed: nothing
			// recorded; a lock skip is recorded, the task running): the
			// scan reads it again (replayAsRegistered).
			a.changed = changedSince(ctx, st, t)
		}
		return a, err
	}
	l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{
		Task: t.Name, ReplaySlot: slot, Argv: t.Argv, Dir: t.Dir, DirFromLedger: true, DirSeen: seen, Retries: t.Retries,
		RetryDelay: t.RetryDelay, Timeout: t.Timeout, KillAfter: t.KillAfter, NoCapture: t.NoCapture,
		NotifyCmd: storedNotify(t), Shared: st.Shared(), PrevSlot: span.prev, Coalesced: span.n,
		Fold: span.fold, FoldReason: span.reason, ReadRuns: true, SaysMeanwhile: true, AfterRun: read, Registered: t.RegisteredAt,
		Updated: t.UpdatedAt,
	}, held: held}
	res, err := l.run(ctx)
	if err != nil {
		return SlotAction{}, err
	}
	a := slotAction(slot, res.ExitCode, res.Skipped, res.Run.ID)
	a.Status = res.Run.Status
	switch {
	case res.Stopped: // the scan's stop came before its job started: nothing ran, nothing settled
		a.Action, a.Reason, a.NoExit = ActionInterrupted, reasonStoppedFirst, true
	case res.Ran && res.Run.Status == store.StatusInterrupted:
		a.Action, a.Reason = ActionInterrupted, reasonCut
	case res.Ran && !res.Skipped && res.ExitCode == exitLocked:
		a.Action, a.Reason = ActionFailed, "" // the job's own exit 75: it ran, and failed
	case a.Action == ActionFailed:
		a.Reason = notStarted(res.Run)
	}
	a.lockSkipped = res.Skipped && res.ExitCode == exitLocked
	if a.lockSkipped && strings.HasPrefix(res.Run.Error, reasonGapHeld) {
		a.Reason = res.Run.Error // not the task's lock: heldBack
	}
	a.unreachable = a.lockSkipped && (res.lockUnreachable || res.LedgerFault != nil)
	a.rowLocked = a.unreachable && (res.rowLocked || errors.Is(res.LedgerFault, store.ErrLedgerLocked))
	a.held = res.Skipped && res.Run.Status == store.StatusRunning
	a.running = a.held // held by a run still running: scanTask ends the task's replays
	if a.held {
		a.holder = &res.Run
	}
	a.folded = res.Folded
	a.gone = res.gone
	a.retired = res.retired
	a.paused = res.paused
	a.changed = res.changed
	a.failedMeanwhile = res.failedMeanwhile
	if a.notedMeanwhile = res.notedMeanwhile; a.notedMeanwhile {
		a.Reason = "ran meanwhile, its outcome noted on this host: the next scan records it"
	}
	if res.Skipped && res.Run.Status == store.StatusSkipped && gaveBackSince(res.Run.Error) {
		a.Reason = res.Run.Error // its claim given back: another scan ran it since this one read the task
	}
	if res.Skipped && res.Run.Status == store.StatusSucceeded && res.Run.ID != 0 {
		a.ranMeanwhile = true // said once for the task (sayRanMeanwhile)
		a.Reason = "ran meanwhile (" + succeededRun(res.Run) + "): not replayed again"
	}
	if res.Skipped && res.Run.Status == store.StatusExpired { // its claim refused: given up meanwhile
		a.givenUp = &res.Run
		a.Reason = fmt.Sprintf("recorded expired meanwhile (%s): not replayed", res.Run.Reason)
	}
	return a, nil
}

// notStarted is the reason shown for a failed run whose command could not
// be started (not found, not executable, an environment exec refused):
// its exit status, 126 or 127, is one a job that ran could exit too. Such a
// run, and only such, is recorded failed with an error (outcome).
func notStarted(r store.Run) string {
	if r.Status != store.StatusFailed || r.Error == "" {
		return ""
	}
	return "not started: " + r.Error
}

// withCommand is t as its replays run it: with the command and the
// --notify-cmd req holds for it (ScanRequest.Commands, NotifyCmds), if any.
func withCommand(t store.Task, req ScanRequest) store.Task {
	if argv := req.Commands[t.Name]; argv != nil {
		t.Argv = argv
	}
	if cmd, ok := req.NotifyCmds[t.Name]; ok {
		t.NotifyCmd = cmd
	}
	return t
}

// reasonCut is why a replay was cut short.
const reasonCut = "stopped with the scan; the next scan replays it"

// reasonStoppedFirst is why a replay whose job was set up to start did not
// start: the scan's stop came first.
const reasonStoppedFirst = "stopped with the scan before its job started: not run; the next scan replays it"

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

// shell is the program cron runs the line's command part with: the
// crontab's SHELL= above the line, else /bin/sh. (Before, every replay
// ran /bin/sh, a line written for the crontab's SHELL=/bin/bash failing
// or doing something else in its replays alone.) Another user's crontab
// names it for that user's line, which runs as that user, as under cron.
func (sr *shellReplay) shell() string {
	sh := "/bin/sh"
	for _, kv := range sr.vars {
		if k, v, _ := strings.Cut(kv, "="); k == "SHELL" && v != "" {
			sh = v
		}
	}
	return sh
}

// replayShell runs a crontab line's command part as cron would: its shell
// (the crontab's SHELL=, else /bin/sh) with -c,
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
	if sr.as == nil {
		file, done, err := lineLedgerFile(m)
		if err != nil {
			return SlotAction{Slot: slot, Action: ActionFailed, ExitCode: ExitInternal, Reason: err.Error()}, nil
		}
		defer done()
		if file != "" {
			m.DBFile = file
		}
	}
	env := append(append([]string{}, sr.env(m)...), "CATCHUP_REPLAY_SLOT="+slot.UTC().Format(time.RFC3339))
	if span.n > 0 {
		env = append(env, "CATCHUP_REPLAY_PREV_SLOT="+span.prev.UTC().Format(time.RFC3339),
			"CATCHUP_REPLAY_COALESCED="+strconv.Itoa(span.n))
	}
	env = append(env, extra...)
	stdout, stderr := m.Stderr, m.Stderr
	if cred != nil {
		// Another user's output: escaped, so that it cannot drive the
		// terminal of the root who runs scan (erase or forge its lines),
		// and each of its lines named as that user's job's, so that none
		// reads as one of scan's own (catchup: warning: ...).
		prefix := sr.as.Username + "/" + t.Name + "| "
		o, e := &termsafe.Writer{W: m.Stderr, Prefix: prefix}, &termsafe.Writer{W: m.Stderr, Prefix: prefix}
		defer o.Flush()
		defer e.Flush()
		stdout, stderr = o, e
	}
	cfg := runner.Config{Argv: []string{sr.shell(), "-c", sr.command}, Dir: sr.dir, Env: env,
		Stdout: stdout, Stderr: stderr, Credential: cred, Signals: m.JobSignals, OnSignal: m.Stop,
		Stop: ctx, Gate: m.Starts, BeforeStart: m.BeforeJobStart, Kill: m.JobsKill} // a stop first: the line never starts
	if sr.stdin != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return SlotAction{}, fmt.Errorf("replay %s: %w", t.Name, err)
		}
		go func() { w.WriteString(sr.stdin); w.Close() }()
		defer r.Close()
		cfg.Stdin = r
	}
	report, err := newLineReport(&cfg)
	if err != nil {
		return SlotAction{}, fmt.Errorf("replay %s: %w", t.Name, err)
	}
	res, err := runner.Run(ctx, cfg)
	ids := report.read()
	if err != nil {
		return SlotAction{}, fmt.Errorf("replay %s: %w", t.Name, err)
	}
	if res.Stopped { // nothing ran, nothing recorded: the slot stays missed
		return SlotAction{Slot: slot, Action: ActionInterrupted, ExitCode: res.ExitCode, NoExit: true,
			Reason: reasonStoppedFirst, stoppedFirst: true}, nil
	}
	a := slotAction(slot, res.ExitCode, false, 0)
	a.lineRuns = ids
	if !res.Started && res.StartErr != nil {
		a.Reason = res.StartErr.Error()
	}
	return a, nil
}
