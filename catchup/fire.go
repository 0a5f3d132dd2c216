package catchup

// Which slot a fire stands for, and what a fire does when that slot is
// already settled or the task is still running (docs/slots.md, "The slot
// of a fire").

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// ReasonDuplicate starts the error of a duplicate fire's record.
const ReasonDuplicate = "duplicate fire of slot "

// reasonOnBusySkip is the error of a fire skipped by --on-busy skip.
const reasonOnBusySkip = reasonLocked + "; skipped by --on-busy skip"

// fire is what one invocation of run stands for.
type fire struct {
	slot    time.Time
	trigger string
	// scheduled: the slot came from the schedule, not from --slot or
	// scan, so the fire may be a duplicate of a run of it.
	scheduled bool
	// byHand: run --manual, which stands for no slot at all (see
	// store.ReasonByHand).
	byHand bool
	// early: how long before its slot the fire came (at most earlyFire).
	early time.Duration
	// unslotted: why a fire of a schedule stands for no slot (run says it).
	unslotted string
	// backdate: the slot lies before the task's registration by a scan,
	// which moves back to it (scanRegisteredAfter).
	backdate bool
}

// reason is the reason code its runs are recorded with.
func (f fire) reason() string {
	if f.byHand {
		return store.ReasonByHand
	}
	return ""
}

// standsForASlot reports whether r, a run without a slot, may stand for the
// slot it started just after (within tolerance): a fire of a line whose
// schedule was not known then may; a run by hand never does, nor does a
// retry cut in its delay (store.ReasonRetryCut, which takes the place of a
// run by hand's reason): it ran nothing, and its failed attempt speaks for
// it (R10), so a run by hand's cut retry never settles nor causes a slot.
func standsForASlot(r store.Run) bool {
	switch r.Reason {
	case store.ReasonByHand, store.ReasonByHandRetryDelay:
		return false
	case store.ReasonRetryCut:
		return r.Status != store.StatusInterrupted
	}
	return true
}

// resolveFire decides which slot this invocation stands for. The first
// rule that applies wins:
//   - scan's replay (CATCHUP_REPLAY_SLOT): that slot, trigger replay;
//   - the daemon's fire (FireSlot): the slot its timer was set for,
//     trigger schedule;
//   - --manual: no slot, trigger manual;
//   - --slot S: S, trigger manual;
//   - the task has a schedule: the latest slot at or before now (or the
//     next one, when it is at most earlyFire ahead and now's minute does
//     not match the expression: cron fired it, catchup's clock lags), trigger
//     schedule, when that slot is the task's: not before the registration
//     of a task registered with this schedule; for the first fire of a
//     schedule (the task is new, or the fire changes its schedule), at most
//     --tolerance old, since nothing says the task existed before (a fire
//     that cannot read the ledger cannot tell, and stands for it: its note
//     names the slot, which scan then does not run a second time); so does
//     a fire of a crontab line a scan registered after the slot
//     (scanRegisteredAfter);
//   - otherwise no slot, trigger manual.
//
// However late the fire is, it adopts that slot: whether the slot is
// already settled is decided next, under the task's lock.
func (l *lifecycle) resolveFire() fire {
	l.firedAt = l.m.Now()
	switch {
	case !l.req.ReplaySlot.IsZero() && l.req.Backfill:
		return fire{slot: l.req.ReplaySlot.UTC(), trigger: store.TriggerBackfill}
	case !l.req.ReplaySlot.IsZero():
		return fire{slot: l.req.ReplaySlot.UTC(), trigger: store.TriggerReplay}
	case !l.req.FireSlot.IsZero():
		return fire{slot: l.req.FireSlot.UTC(), trigger: store.TriggerSchedule, scheduled: true}
	case l.req.Manual:
		return fire{trigger: store.TriggerManual, byHand: true}
	case !l.req.Slot.IsZero():
		return fire{slot: l.req.Slot.UTC(), trigger: store.TriggerManual}
	case l.sched == nil:
		return fire{trigger: store.TriggerManual}
	}
	now := l.m.Now()
	tick, ok := l.sched.Prev(now)
	var early time.Duration
	if next, ok2 := l.earlyFor(now); ok2 {
		tick, ok, early = next, true, next.Sub(now)
	}
	switch {
	case !ok:
		return fire{trigger: store.TriggerManual, unslotted: l.noSlotYet()}
	case l.knownSchedule():
		if tick.Unix() < l.registered.RegisteredAt.Unix() { // before the task existed
			if !l.scanRegisteredAfter(tick, now) {
				return fire{trigger: store.TriggerManual, unslotted: l.beforeRegistration(tick, now)}
			}
			return fire{slot: tick, trigger: store.TriggerSchedule, scheduled: true, early: early, backdate: true}
		}
	case now.Sub(tick) > l.req.Tolerance && !l.unread:
		return fire{trigger: store.TriggerManual, unslotted: l.lateFirstFire(tick, now)}
	}
	return fire{slot: tick, trigger: store.TriggerSchedule, scheduled: true, early: early}
}

// knownSchedule reports whether the task is registered with the schedule
// and zone this fire reads, however written (MON-FRI and 1-5; UTC, Etc/UTC).
func (l *lifecycle) knownSchedule() bool {
	t := l.registered
	return t != nil && schedule.SameExpr(t.Schedule, l.sched.Expr()) && schedule.SameZone(t.TZ, l.sched.Location().String())
}

// loadRegistered reads the task's registration: the schedule of a fire
// without --cron, and what resolving its slot needs. Its zone file, in a
// root fire of another user's task, is read as that user (storedSchedule).
func (l *lifecycle) loadRegistered(ctx context.Context) error {
	task, err := l.st.Task(ctx, l.req.Task)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !task.RetiredAt.IsZero() {
		// Retired (catchup forget): this fire registers the task anew.
		l.revive = &task
		if l.sched == nil {
			l.sched, _ = storedSchedule(l.m, nil, task)
		}
		return nil
	}
	l.registered = &task
	resolveZone(ctx, l.st, l.m, l.registered)
	switch {
	case l.sched == nil:
		if l.sched, err = storedSchedule(l.m, nil, task); err != nil {
			l.m.notice("task %s: registered schedule ignored: %v", l.req.Task, err)
			l.sched = nil
		}
	case l.req.ZoneFromHost && strings.HasPrefix(task.Source, "crontab:") &&
		schedule.SameExpr(task.Schedule, l.sched.Expr()) && task.TZ != l.sched.Location().String():
		// A crontab line's --cron without --tz: cron fires it in the zone
		// scan registered for the line (its CRON_TZ, else cron's own), not
		// in the TZ its crontab may pass to the job.
		if s, err := storedSchedule(l.m, nil, task); err == nil {
			l.sched = s
		}
	default:
		l.fleetZoneOf(task)
	}
	return nil
}

// checkDuplicate ends a scheduled fire whose slot another run holds
// (holder: a failed one too, against the slot's own fire), unless --force:
// it does not run the job again. lockHeld says this
// process holds the task's lock.
func (l *lifecycle) checkDuplicate(ctx context.Context, f fire, lockHeld bool) (RunResult, bool) {
	if !f.scheduled || l.req.Force {
		return RunResult{}, false
	}
	h, found, err := l.holder(ctx, f.slot, lockHeld, l.ownFire(f.slot))
	if err != nil || !found {
		return RunResult{}, false // a read fault: the claim decides
	}
	// A claim refused as a duplicate (run_refused.go) registered with the
	// claim; this fire makes no claim.
	l.registerHeld(ctx, l.m.Now(), f.slot, lockHeld)
	return l.duplicate(ctx, f.slot, h), true
}

// holder returns the run that holds slot against another fire, if any: one
// that succeeded, is running and alive, or was skipped by a policy; and,
// against the slot's own fire again (failedHolds: another host, a second
// cron, cronie's catch-up of a spring-forward gap), one that failed or
// timed out. Against a
// fire by hand a failed slot is not held: it runs again, as the claim
// allows. A running record of this host is dead when this process holds
// the lock or when it was written before this boot; another host's, when
// its lease expired.
func (l *lifecycle) holder(ctx context.Context, slot time.Time, lockHeld, failedHolds bool) (store.Run, bool, error) {
	runs, err := l.st.SlotRuns(ctx, l.req.Task, slot, slot, 0)
	if err != nil {
		return store.Run{}, false, err
	}
	var h store.Run
	found := false
	for _, r := range runs {
		if !r.Slot.Equal(slot) {
			continue
		}
		ours := thisHost(l.st, l.m, r) // a local ledger is this host's, whatever the name
		rebooted := r.BootID != "" && l.m.BootID != "" && r.BootID != l.m.BootID
		switch r.Status {
		case store.StatusSucceeded:
		case store.StatusRunning:
			if (ours && ((lockHeld && !outcomeHeld(l.m, r)) || rebooted)) || leaseExpired(l.st, l.m, r) {
				continue
			}
		case store.StatusSkipped:
			if r.ExitCode != nil { // a lock skip or a duplicate: it ran nothing
				continue
			}
		case store.StatusFailed, store.StatusTimeout:
			if !failedHolds {
				continue
			}
		default:
			continue
		}
		h, found = r, true
	}
	return h, found, nil
}

// duplicate is a fire of slot, whose run h settled it. When the fire is
// cron-shaped (its wall-clock minute matches the schedule: a second cron,
// a crontab installed twice, a wall time that came twice), early for the
// slot or for its twin minute (earlyTwin: a fleet's host whose clock
// lags), or a daemon's fire of it (daemonFireOf: a replica's, held back),
// it is recorded `skipped`, exit 0, "duplicate fire of slot S"; a fire at
// another time (late, or a catch-up of a DST gap) only says so. Neither
// runs the job, and neither settles or unsettles the slot.
func (l *lifecycle) duplicate(ctx context.Context, slot time.Time, h store.Run) RunResult {
	now := l.m.Now()
	s := formatSlot(slot, l.sched)
	res := RunResult{Run: h, Skipped: true}
	if !l.cronShaped() && !l.earlyOf(slot) && !l.earlyTwin() && !l.daemonFireOf(slot) {
		l.m.notice("slot %s of %s %s; not running it again (--manual runs the task by hand, --force the slot)%s",
			s, l.req.Task, holderState(h), l.keptSaid())
		return res
	}
	rec := store.Run{Task: l.req.Task, Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
		Attempt: 1, StartedAt: now, EndedAt: now, Host: l.m.Host, PID: l.m.PID, BootID: l.m.BootID,
		ExitCode: exitCodePtr(0), Error: ReasonDuplicate + s}
	id, err := l.st.AddRun(ctx, rec)
	rec.ID = id
	res.Run = rec
	h = l.reread(ctx, h)
	if err != nil { // said once, never as recorded (a connection lost as it was written)
		l.m.notice("duplicate fire of slot %s of %s: it %s; not run again (%s); its skip could not be recorded: %v%s",
			s, l.req.Task, holderState(h), againHint(h), err, l.keptSaid())
		return res
	}
	l.m.notice("duplicate fire of slot %s of %s: it %s; recorded skipped, not run again (%s)%s",
		s, l.req.Task, holderState(h), againHint(h), l.keptSaid())
	return res
}

// registerHeld registers the task as a claim of slot would have (lockHeld:
// this fire holds the task's lock), for a
// fire that runs nothing because its slot is held (a duplicate, a late
// fire of a settled slot), as a lock skip and a paused fire do, when it
// changes the schedule or zone (duplicateKeeps): a --cron
// fire that does (an edited line fired in the
// minute its old copy ran) makes the change now. Left to the next fire,
// the new schedule's slots until then (the host down meanwhile) were
// dropped without a word: that fire made the schedule count from itself.
func (l *lifecycle) registerHeld(ctx context.Context, now, slot time.Time, lockHeld bool) {
	if !l.req.ReplaySlot.IsZero() || l.duplicateKeeps(now, slot) {
		return
	}
	if reg := l.registration(ctx, now, slot, lockHeld); reg != nil {
		if err := l.st.UpsertTask(ctx, *reg); err != nil {
			l.m.notice("task %s: cannot register its schedule: %v", l.req.Task, err)
		}
	}
}
