package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// fire runs one scheduled fire of the task through the run lifecycle,
// once it has a place among the simultaneous jobs. owed is as firePlaced's.
func (d *Daemon) fire(ctx context.Context, t Task, slot time.Time) (owed bool) {
	if d.acquire(ctx) {
		return d.firePlaced(ctx, t, slot, nil, nil)
	}
	return false
}

// firePlaced is fire once its place is taken (acquire, tryAcquire): it
// gives the place back, as soon as its job has ended and its outcome is
// recorded (before its end ping and --notify-cmd: an alert is no job, and
// a monitor that does not answer must not hold another task's fire back
// for the 10 s of its end ping). started, if set, is called as its first
// job starts; settled, if set, once its outcome is recorded, before its
// end ping and --notify-cmd, unless the fire is owed (its slot left
// missed: the next fire must replay it first): the task's next held fire
// starts then, not once a monitor that does not answer has been given up.
// owed reports a fire that ran nothing and left its slot missed, for a
// replay to run (the task's lock held by another run, the ledger
// unreachable, its home refused: homeRefused): no other fire comes for
// that slot.
func (d *Daemon) firePlaced(ctx context.Context, t Task, slot time.Time, started, settled func()) (owed bool) {
	var once sync.Once
	release := func() { once.Do(d.release) }
	defer release()
	req, ok := d.fireRequest(t, slot)
	if !ok {
		return true // nothing ran: left missed, for a replay once the home is fixed
	}
	begun := false
	m := d.machine(t, func(pid int) {
		if !begun { // the first attempt's job
			begun = true
			if started != nil {
				started()
			}
			late := time.Duration(float64(d.cfg.Machine.Now().Sub(slot)) / d.cfg.Rate)
			d.health.observe(late)
			d.logStarted(t.Def.Name, slot, pid, triggerSchedule, late)
			d.checkClock() // as its claim, just made, read it again
		}
	})
	m.BeforeHooks = func(res catchup.RunResult) {
		release()
		if settled != nil && !leftOwed(res) {
			settled()
		}
	}
	start := time.Now()
	res, err := catchup.Run(ctx, d.cfg.Store, nil, m, req)
	d.ledgerOutcome(t.Def.Name, slot, res, err)
	if err != nil {
		d.cfg.Log.Error(err.Error(), "event", "error", "task", t.Def.Name, "slot", slot.Format(time.RFC3339))
		return false
	}
	owed = leftOwed(res)
	if res.Stopped {
		// The stop came as its job was set up to start: it never started,
		// and its run is recorded interrupted, for the next start's scan.
		d.cfg.Log.Info("not run: "+reasonStoppedFirst, "event", "skip", "task", t.Def.Name,
			"slot", slot.Format(time.RFC3339), "run", res.Run.ID, "exit", res.ExitCode, "trigger", triggerSchedule)
		return owed
	}
	e := ended{slot: res.Run.Slot, run: res.Run.ID, status: res.Run.Status, exit: res.ExitCode,
		trigger: triggerSchedule, seconds: time.Since(start).Seconds()}
	if !res.Ran && (res.Skipped || res.Run.ID == 0 || res.Run.Status != store.StatusFailed) {
		if res.LedgerFault != nil {
			d.cfg.Log.Error("not run: the ledger cannot record it", "event", "skip", "task", t.Def.Name,
				"slot", slot.Format(time.RFC3339), "exit", res.ExitCode, "trigger", triggerSchedule)
			return owed
		}
		e = ended{slot: slot, exit: res.ExitCode, trigger: triggerSchedule}
	}
	d.logEnded(t.Def.Name, e)
	return owed
}

// leftOwed reports whether a fire's result leaves its slot owed (see
// firePlaced): unrecorded, or a lock skip left missed.
func leftOwed(res catchup.RunResult) bool { return res.LedgerFault != nil || res.LeftMissed() }

// reasonStoppedFirst says why a fire whose job was set up to start ran
// nothing.
const reasonStoppedFirst = "the daemon stopped before its job started; the next start replays it"

// reasonHeldForTurn says why a held fire that recorded nothing ran nothing.
const reasonHeldForTurn = "held for its turn (a place under --concurrency, or the task's replays); the daemon stopped first: the next start replays it"

// heldStopped deals with a fire of slot that never had its turn: the
// daemon stopped while it was held back (behind the task's replays or the
// fire before it, or waiting for a place under --concurrency). When a job
// of the task was running as its slot came (busy), its fire found the
// task busy: it is recorded a lock skip (exit 75), as cron's fire that met
// the lock is, so that the slot is lock-busy for ls --missed, explain,
// scan and metrics alike, not not-fired ("nothing fired it"); the next
// start replays it. Else nothing is recorded (a line in the log says so):
// the slot came while the daemon held its fire for a reason of its own
// (not-fired). A line's
// --on-busy skip does not settle it: the fire never met the lock. Had the
// daemon gone on, a fire held behind the task's replays or the fire
// before it would have run once they ended (the daemon never lock-skips
// its own fire), and settling is right only beside a live run of another
// slot (catchup's busy, heldByAnotherSlot), which the stop is ending.
func (d *Daemon) heldStopped(ctx context.Context, t Task, slot time.Time, busy bool) {
	if !busy {
		// Nothing recorded, but never without a word: the log says the
		// daemon came to the slot and left it.
		d.cfg.Log.Info("not run: "+reasonHeldForTurn, "event", "skip", "task", t.Def.Name,
			"slot", slot.Format(time.RFC3339), "trigger", triggerSchedule)
		return
	}
	// The stop cancelled ctx; a write still gives up by the grace's end.
	r, err := catchup.RecordHeldFire(context.WithoutCancel(ctx), d.cfg.Store, d.cfg.Machine, t.Def.Name, slot)
	if err != nil {
		d.cfg.Log.Error("cannot record the held fire: "+err.Error(), "event", "error", "task", t.Def.Name,
			"slot", slot.Format(time.RFC3339))
		return
	}
	d.cfg.Log.Info("not run: "+catchup.ReasonHeldStopped, "event", "skip", "task", t.Def.Name,
		"slot", slot.Format(time.RFC3339), "run", r.ID, "exit", *r.ExitCode, "trigger", triggerSchedule)
}
