package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// A fire may get its task's lock because its holder died: catchup
// killed, a power cut under the holder's process or host, its run left
// `running` with no outcome. Run at once, the fire's slot ran before the
// dead run's older one, which the next scan replayed after it: each slot
// once, but not oldest first. So a scheduled fire replays first, in this
// process and under the lock it holds, the slots before its own that such
// a dead run left, oldest first, then runs its own: a fire that waited
// for the lock here, before its claim (deadFirst); one that waited for
// another host's run on a shared ledger (its lease run out), or whose
// claim found the task with an older slot's record running (the lock free
// here, or the ledger's lock free of a run whose lease ran out: its claim
// reads it in its transaction, ClaimRequest.AskOlderRunning), after its
// claim (claimedDeadFirst). When one of them cannot be replayed (the lock
// taken by another host's run meanwhile, the ledger out of reach, a
// stop), the fire runs nothing and is a lock skip (exit 75): its slot
// stays missed, behind the older one, and scan replays both in order.

// deadBefore lists, oldest first and each once, the slots before slot that
// a run of the task left running and that is dead now (stale: this process
// holds the task's lock here, or the run's lease ran out on another host).
// A read error lists none, as do notes of unrecorded fires this host still
// keeps: the fire goes on as before.
func (l *lifecycle) deadBefore(ctx context.Context, slot time.Time) []time.Time {
	if hasNotes(l.m) {
		// The holder may have ended with its outcome noted, not recorded
		// (the ledger full, or out of reach, then): its record, running,
		// is no dead run. Recorded now, the ledger tells; still kept (the
		// ledger still failing), nothing is replayed here.
		if notes, _, err := recordNotes(ctx, l.st, l.m, l.req.Tolerance, "this fire"); err != nil || notes != nil {
			return nil
		}
	}
	runs, err := l.st.Running(ctx)
	if err != nil {
		return nil
	}
	var out []time.Time
	for _, r := range append(runs, l.tookDead...) {
		// A slot of another schedule than the fire's (a fire that changes
		// it) is not replayed: the change records it expired (S8).
		if r.Task == l.req.Task && !r.Slot.IsZero() && r.Slot.Before(slot) && (l.sched == nil || l.sched.Has(r.Slot)) && l.stale(r) {
			out = append(out, r.Slot)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

// deadFirst is run's check once a scheduled fire whose policy is to wait
// for its task's lock, which found it held (waited), holds it here: the
// slots a dead holder left are replayed first (replayDead). left: one of them could not be, and the fire's own slot
// is left missed behind it (a lock skip, res).
func (l *lifecycle) deadFirst(ctx context.Context, lock *taskLock, base store.Run, waited bool) (res RunResult, left bool) {
	if !waited || base.Trigger != store.TriggerSchedule || !l.req.ReplaySlot.IsZero() || l.onBusy() != "wait" {
		return RunResult{}, false
	}
	slots := l.deadBefore(ctx, base.Slot)
	if len(slots) == 0 {
		return RunResult{}, false
	}
	at, left := l.replayDead(ctx, lock, base.Slot, slots, true)
	if !left {
		return RunResult{}, false
	}
	return l.lockSkip(context.WithoutCancel(ctx), base, reasonLocked, exitCodePtr(exitLocked), l.deadLeftNotice(at, base.Slot)), true
}

// deadLeftNotice says that the fire of slot runs nothing, since the
// older slot at, left by a run that died, could not be replayed first.
func (l *lifecycle) deadLeftNotice(at, slot time.Time) string {
	return fmt.Sprintf("task %s: slot %s, left without an outcome by a run that died, could not be replayed first; "+
		"slot %s is not run before it: skipped, exit %d, both left to scan, oldest first",
		l.req.Task, formatSlot(at, l.sched), formatSlot(slot, l.sched), exitLocked)
}

// replayDead replays slots (deadBefore's), oldest first, under lock, which
// this fire holds and keeps; waited: the fire waited for the run that
// died, else it came after it. It returns the first slot left missed, if any.
func (l *lifecycle) replayDead(ctx context.Context, lock *taskLock, own time.Time, slots []time.Time, waited bool) (time.Time, bool) {
	when := "before the fire of %s"
	if waited {
		when = "while the fire of %s waited for it"
	}
	for _, s := range slots {
		l.m.notice("task %s: the run of slot %s died without an outcome "+when+"; replaying it first",
			l.req.Task, formatSlot(s, l.sched), formatSlot(own, l.sched))
		sub := l.replayOf(s)
		res, err := sub.attempts(ctx, lock, store.Run{Task: l.req.Task, Slot: s, Trigger: store.TriggerReplay, Attempt: 1,
			Host: l.m.Host, PID: l.m.PID, BootID: l.m.BootID}, true)
		if l.m.OnReplayFirstEnd != nil {
			l.m.OnReplayFirstEnd(s, res)
		}
		if err != nil || ctx.Err() != nil || res.Stopped || res.LeftMissed() {
			return s, true
		}
	}
	return time.Time{}, false
}

// replayOf is the lifecycle of a replay of slot that this fire runs before
// its own: its command, directory, retries and --notify-cmd, as a scan's
// replay of the task would (no ping: a replay sends none; no hooks of the
// fire's caller: they are the fire's).
func (l *lifecycle) replayOf(slot time.Time) *lifecycle {
	req := l.req
	req.ReplaySlot, req.Slot, req.FireSlot = slot, time.Time{}, time.Time{}
	req.Wait, req.WaitLimit, req.OnBusy, req.Ping, req.Force = false, 0, "", "", false
	req.Schedule, req.TZ, req.DaemonLine = nil, "", nil
	m := l.m
	m.BeforeHooks = nil
	if started := m.OnReplayFirstStart; started != nil { // its job is no start of the fire's own
		m.OnJobStart = func(pid int) { started(slot, pid) }
	}
	return &lifecycle{st: l.st, m: m, req: req, sched: l.sched, registered: l.registered}
}

// claimedDeadFirst is claimAndRun's check once a scheduled fire's claim r
// holds the task's locks (here, and the ledger's: release) and either
// waited for another host's run (waited) or found the task with an older
// slot's record running (its claim's OlderRunning): the slots a dead run
// left (its lease run out, or its catchup gone) are replayed first, the
// ledger lock let go meanwhile (each replay takes it for its own claim)
// and r kept alive by its heartbeats, then the lock is taken again for r,
// whose record then starts anew (its start after the replays'). ok false:
// r is given back (a lock skip, res), or the lock could not be taken again
// (res as lockFleet's).
func (l *lifecycle) claimedDeadFirst(ctx context.Context, lock *taskLock, r *store.Run, release func(), waited bool) (func(), RunResult, bool) {
	if r.Attempt != 1 || r.Trigger != store.TriggerSchedule || !l.req.ReplaySlot.IsZero() {
		return release, RunResult{}, true
	}
	slots := l.deadBefore(ctx, r.Slot)
	if len(slots) == 0 {
		return release, RunResult{}, true
	}
	release()
	_, stopBeats := l.heartbeats(ctx, r.ID)
	at, left := l.replayDead(ctx, lock, r.Slot, slots, waited)
	stopBeats()
	if left {
		l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(),
			ExitCode: exitCodePtr(exitLocked), Error: reasonLocked})
		l.m.notice("%s", l.deadLeftNotice(at, r.Slot))
		r.Status, r.Error = store.StatusSkipped, reasonLocked
		return nil, RunResult{ExitCode: exitLocked, Run: *r, Skipped: true}, false
	}
	release, ok, unreachable := l.lockFleet(ctx, *r)
	if !ok {
		return nil, RunResult{ExitCode: exitLocked, Run: *r, Skipped: true, lockUnreachable: unreachable, rowLocked: l.rowLocked}, false
	}
	if now := l.m.Now(); now.After(r.StartedAt) {
		// Its command starts now, after the replays: a record that kept
		// its claim's start would count their time as its own. Taken for
		// dead meanwhile (not running), its heartbeats stop it.
		if running, err := l.st.SetStarted(ctx, r.ID, now); err == nil && running {
			r.StartedAt = now
		}
	}
	return release, RunResult{}, true
}
