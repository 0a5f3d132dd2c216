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
	giveTurn := sync.OnceFunc(func() {
		if started != nil {
			started()
		}
	})
	var watch *ledgerWait
	m := d.machine(t, func(pid int) {
		watch.end()
		if !begun { // the first attempt's job
			begun = true
			giveTurn()
			late := time.Duration(float64(d.cfg.Machine.Now().Sub(slot)) / d.cfg.Rate)
			d.health.observe(late)
			d.logStarted(t.Def.Name, slot, pid, triggerSchedule, late)
			d.checkClock() // as its claim, just made, read it again
		}
	})
	d.logReplaysFirst(&m, t.Def.Name, giveTurn)
	m.BeforeHooks = func(res catchup.RunResult) {
		release()
		if settled != nil && !leftOwed(res) {
			settled()
		}
	}
	start := time.Now()
	watch = d.watchLedger(&m, t.Def.Name, slot)
	res, err := catchup.Run(ctx, d.cfg.Store, nil, m, req)
	watch.end()
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
	if !res.Ran && (res.Skipped || res.Run.ID == 0 || res.Run.Status != store.StatusFailed) && res.LedgerFault != nil {
		d.cfg.Log.Error("not run: the ledger cannot record it", "event", "skip", "task", t.Def.Name,
			"slot", slot.Format(time.RFC3339), "exit", res.ExitCode, "trigger", triggerSchedule)
		return owed
	}
	d.logEnded(t.Def.Name, runEnded(slot, res, triggerSchedule, time.Since(start).Seconds()))
	return owed
}

// runEnded is the done line of a run of slot that ran (or failed to
// start), else its skip line.
func runEnded(slot time.Time, res catchup.RunResult, trigger string, seconds float64) ended {
	if !res.Ran && (res.Skipped || res.Run.ID == 0 || res.Run.Status != store.StatusFailed) {
		return ended{slot: slot, exit: res.ExitCode, trigger: trigger}
	}
	return ended{slot: res.Run.Slot, run: res.Run.ID, status: res.Run.Status, exit: res.ExitCode,
		trigger: trigger, seconds: seconds}
}

// logReplaysFirst has m's fire log each job it runs before its own, to
// replay a dead run's older slot, as a replay of that slot (its start
// once, its end), never as the fire's own start; the job is tracked as
// any job, and its start gives the task's next fire its turn (giveTurn),
// as the fire's own job's would: the fire holds the task's lock.
func (d *Daemon) logReplaysFirst(m *catchup.Machine, task string, giveTurn func()) {
	var logged time.Time
	var begun time.Time
	m.OnReplayFirstStart = func(slot time.Time, pid int) {
		d.track(task, pid, true)
		giveTurn()
		if !slot.Equal(logged) { // its first attempt's job
			logged, begun = slot, time.Now()
			d.logStarted(task, slot, pid, triggerReplay, -1)
		}
	}
	m.OnReplayFirstEnd = func(slot time.Time, res catchup.RunResult) {
		d.logEnded(task, runEnded(slot, res, triggerReplay, time.Since(begun).Seconds()))
	}
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
