package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// backfillSlot runs one slot as backfill's: argv tasks through the run
// lifecycle here (waiting for the task's lock, on this host and across a
// shared ledger's fleet, said once for the task: waitSaid; a slot another
// host's run holds, said once for that run: claimSaid), crontab tasks
// through their line.
func backfillSlot(ctx context.Context, st store.Store, m Machine, req BackfillRequest, t store.Task,
	sched *schedule.Schedule, sr *shellReplay, slot time.Time, since int64, waitSaid *bool, claimSaid map[int64]bool) (SlotAction, error) {
	m.Stdout = m.Stderr
	force := req.Only == "all"
	if t.Shell != "" {
		env := append(backfillEnv(since, force), registeredEnv(t))
		if said := saidEnv(claimSaid); said != "" {
			env = append(env, said)
		}
		a, err := backfillShell(ctx, st, m, t, sr, slot, env)
		if err == nil && a.running && a.holder != nil && a.holder.ID != a.RunID {
			claimSaid[a.holder.ID] = true // its line named it; a try again is told so
		}
		return a, err
	}
	l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{
		Task: t.Name, ReplaySlot: slot, Backfill: true, AfterRun: since, Force: force, Wait: true,
		Argv: t.Argv, Dir: t.Dir, DirFromLedger: true, Retries: t.Retries, RetryDelay: t.RetryDelay, Timeout: t.Timeout,
		KillAfter: t.KillAfter, NoCapture: t.NoCapture, NotifyCmd: storedNotify(t), Shared: st.Shared(),
		Registered: t.RegisteredAt,
	}, waitSaid: waitSaid, claimSaid: claimSaid}
	res, err := l.run(ctx)
	if err != nil {
		return SlotAction{}, err
	}
	a := slotAction(slot, res.ExitCode, res.Skipped && res.ExitCode != exitLocked, res.Run.ID)
	a.gone = res.gone       // purged since the backfill read it: its claim ran nothing
	a.retired = res.retired // retired since: its claim ran nothing
	switch {
	case res.Stopped: // the backfill's stop came before its job started: nothing ran
		a.Action, a.NoExit = ActionInterrupted, true
		return a, nil
	case res.Ran && res.Run.Status == store.StatusInterrupted:
		a.Action = ActionInterrupted // cut short by the backfill's stop, not failed
		return a, nil
	case res.Ran && !res.Skipped && res.ExitCode == exitLocked:
		a.Action, a.Reason = ActionFailed, "" // the job's own exit 75: it ran, and failed
		return a, nil
	case a.Action == ActionFailed:
		a.Reason = notStarted(res.Run)
		return a, nil
	}
	if res.Skipped && res.Run.Status == store.StatusRunning {
		// Held by a run in progress on another host: tried again after the
		// others, and decided by that run's outcome, as a crontab line's.
		a.ExitCode = exitLocked
		return a, nil
	}
	if res.Skipped && res.ExitCode == 0 {
		a.Reason = "done elsewhere: " + res.Run.Status
		if res.Run.Error != "" {
			a.Reason = res.Run.Error
		}
	}
	return a, nil
}
