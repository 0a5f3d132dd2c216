package daemon

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// loop replays the task's missed slots, then fires it at each slot, each
// fire in its own goroutine (a task never waits for another), and replays
// again every Rescan.
// ctx is the daemon's (fires and replays run in it); a reload ends the
// loop through lctx. The loop fires the slots after from (zero: its own
// start), late when they came before it began: the daemon's first loops
// start from the daemon's start (Rule.FiredAfter: its scans replay the
// slots until then), a reload's from when it read the crontabs, so that a
// slot that came while the tasks were being registered is fired, not left
// between the two. through is how far the loop has come (see progress).
func (d *Daemon) loop(ctx, lctx context.Context, t Task, from time.Time, through *progress) {
	// A restarted task's loop begins once the fires and replays of the
	// loop it replaces have ended (see progress.after): the task's slots
	// still run one after another, oldest first, not beside the old
	// loop's held fires, meeting their lock.
	if through.after != nil {
		select {
		case <-through.after:
		case <-lctx.Done():
			return
		}
	}
	through.inherit()
	// A fire waits for the task's own replays to end (it would find its
	// lock held, and leave its slot missed); replays wait for no fire.
	// Fires held back (see queue) run one after another, in slot order.
	var turn sync.RWMutex
	var scanning atomic.Bool
	var firing atomic.Int32
	var pending atomic.Bool
	var owed owedSlot
	var scans scanWatch
	var rescan func()
	rescan = func() {
		// The slots the loop has not come to are its own to fire: a scan
		// replays none of them (read before firing: a fire counted after
		// this read is of a later slot).
		upTo, skipped := through.get(), through.skippedThrough()
		// A scan beside the task's own fire would find its lock held and
		// leave the slots missed: it runs when the fire ends instead.
		if firing.Load() > 0 {
			pending.Store(true)
			return
		}
		if !scanning.CompareAndSwap(false, true) {
			return
		}
		if !d.begin() {
			scanning.Store(false)
			return
		}
		through.work.Add(1)
		ended := scans.begin()
		go func() {
			defer d.fires.Done()
			defer through.work.Done()
			defer scanning.Store(false)
			defer ended() // once what it left is owed (below)
			turn.Lock()
			defer turn.Unlock()
			if d.owes(ctx, d.scan(ctx, t, upTo, skipped)) {
				// Slots it left missed (behind a slot held by a run still
				// running: an orphan, a replica's) are owed: the task's
				// next fire replays them first, not after its own slot.
				owed.note(upTo)
			}
		}()
	}
	var ticker <-chan time.Time
	if d.cfg.Rescan > 0 {
		tk := time.NewTicker(d.cfg.Rescan)
		defer tk.Stop()
		ticker = tk.C
	}
	begun := d.cfg.Machine.Now()
	if from.IsZero() || from.After(begun) {
		from = begun
	}
	through.set(from)
	rescan()
	next, ok := t.Sched.Next(from)
	// Fires held back run one after another, oldest first: released at
	// once, they would meet each other's lock, the daemon lock-skipping
	// its own fire and leaving its slot to a replay after later slots.
	// Held back is a fire of a slot that came before the loop began, one
	// that waits for the task's replays or for a place under
	// --concurrency, one after slots the loop skipped, and one that comes
	// while the fire before it is held back. A fire on time goes its own
	// way, as cron's (a job longer than its interval meets its own lock),
	// once the fire before it has tried the lock (see fireInTurn): so the
	// fires of a --wait line, too, wait for the lock in slot order, each
	// once the one before it has the lock (its job started).
	var queue chan struct{} // the latest fire's: closed once the next may take its turn
	for ok {
		wait, due := untilDue(d.cfg.Machine.Now(), next, d.cfg.Rate)
		timer := time.NewTimer(wait)
		select {
		case <-lctx.Done():
			timer.Stop()
			return
		case <-ticker:
			timer.Stop()
			rescan()
			continue
		case <-timer.C:
			if !due {
				continue // read the clock again: fire once it reads the slot
			}
		}
		slot := next
		if !d.begin() {
			return // stopping
		}
		firing.Add(1)
		through.set(slot) // after firing counts it: a scan that reads it waits for the fire
		// A loop that fell behind (frozen, the clock stepped ahead) fires
		// its slot late and skips to the coming one: no fire comes for the
		// slots in between, so that fire's goroutine replays them as soon
		// as it has ended, by the task's --replay (--rescan 0 too), not
		// left as slots cron may still fire; the next fire waits for them.
		// The slots before the loop began are each fired.
		var skipped time.Time
		next, ok = t.Sched.Next(slot)
		if now := d.cfg.Machine.Now(); ok && next.After(begun) && next.Before(now) {
			skipped = now
			through.set(now) // the slots skipped are the scan's to replay
			through.skip(now)
			d.sayBehind(t, next, now)
			next, ok = t.Sched.Next(now)
		}
		busy := d.taskBusy(t.Def.Name) // its fire found the task running (see heldStopped)
		prev, mine := queue, make(chan struct{})
		queue = mine
		held := !slot.After(begun) || !skipped.IsZero()
		through.work.Add(1)
		go func() {
			defer d.fires.Done()
			defer through.work.Done()
			if prev != nil {
				select {
				case <-prev:
				default:
					held = true
					<-prev
				}
			}
			var once sync.Once
			next := func() { once.Do(func() { close(mine) }) } // the next fire may take its turn
			defer next()                                       // at the latest once this one has ended
			// A held fire lets the next go once its outcome is recorded
			// (fireInTurn's settled), not after its end ping: a monitor
			// that does not answer held each fire of a queue for 10 s.
			// After skipped slots, the next waits for their scan below;
			// after a fire that left its slot owed, for its note.
			settled := next
			if !skipped.IsZero() {
				settled = nil
			}
			// A rescan under way may leave slots owed: this fire
			// looks for them once it has ended (scanWatch).
			if scans.wait() {
				held = true
			}
			switch d.replayOwed(ctx, t, &owed, &turn, slot, rescanDue{&pending, through.skippedThrough}) {
			case owedTookSlot:
				through.skip(slot) // left missed behind the owed ones: the rescans replay it at once
			case owedReplayed:
				// Held back: a later fire may be queued behind this one
				// (a job longer than its period); released at once, it
				// would race this one for the lock, and win.
				held = true
				fallthrough
			default:
				if d.fireInTurn(ctx, t, slot, held, busy, &turn, next, settled) {
					through.skip(slot) // the rescans replay it at once
					owed.note(slot)
				}
			}
			if !skipped.IsZero() && ctx.Err() == nil {
				turn.Lock()
				if d.owes(ctx, d.scan(ctx, t, skipped, skipped)) {
					// Slots it left missed (behind a slot a replica's
					// run still holds) are owed, as a rescan's: the
					// next fire replays them before its own slot.
					owed.note(skipped)
				}
				turn.Unlock()
			}
			if firing.Add(-1) == 0 && pending.Swap(false) && ctx.Err() == nil {
				rescan()
			}
		}()
	}
}

// fireInTurn fires the slot in the task's turn: a fire on time (not
// held) goes its own way when it gets a place at once, else it waits for
// the turn and a place. A fire on time lets the next fire take its turn
// (next) once its job has started, or it has ended having run nothing:
// never before it has tried the task's lock. Released sooner, the next
// fire could pass it on the way to the lock (this one slowed before it,
// reading the ledger) and run its later slot first, leaving this one's
// to a replay after it. owed is firePlaced's. busy says that a job of the
// task was running when the slot came: a fire that never has its turn
// (the daemon stopped first) is then recorded a lock skip (heldStopped).
// Once the fire's outcome is recorded and its slot not owed, it gives the
// turn back (a scan of the task may run) and calls settled, if set,
// before its end ping and --notify-cmd (firePlaced).
func (d *Daemon) fireInTurn(ctx context.Context, t Task, slot time.Time, held, busy bool, turn *sync.RWMutex, next, settled func()) (owed bool) {
	placed := false
	if !held && turn.TryRLock() {
		placed = d.tryAcquire(ctx) // else held back for a place under --concurrency
	} else {
		turn.RLock()
	}
	var once sync.Once
	giveBack := func() { once.Do(turn.RUnlock) }
	defer giveBack()
	recorded := func() {
		giveBack()
		if settled != nil {
			settled()
		}
	}
	if placed {
		return d.firePlaced(ctx, t, slot, next, recorded)
	}
	if !d.acquire(ctx) {
		d.heldStopped(ctx, t, slot, busy)
		return false
	}
	return d.firePlaced(ctx, t, slot, nil, recorded)
}

// owes reports whether a scan that ended so leaves its slots owed to the
// task's next fire: some left missed (scanLeft), or, under --rescan 0,
// none replayed because the ledger could not be read (no rescan comes for
// them: they waited for the next start while newer slots ran).
func (d *Daemon) owes(ctx context.Context, ended int) bool {
	return ended == scanLeft || ended == scanFailed && d.cfg.Rescan <= 0 && ctx.Err() == nil
}
