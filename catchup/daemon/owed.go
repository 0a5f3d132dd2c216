package daemon

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// owedSlot is the latest slot a task's fire left missed (fire's owed: the
// task's lock held by another run, the ledger unreachable). No fire comes
// for it again, so the task's next fire replays it first (replayOwed), and
// the loop's rescans at once, --tolerance or not (progress.skip): no later
// slot runs before it, also under --rescan 0.
type owedSlot struct{ ns atomic.Int64 } // unix ns; 0: none

// note records that the fire of slot ran nothing; the latest slot wins
// (a replay up to it takes the earlier ones too).
func (o *owedSlot) note(slot time.Time) {
	for old := o.ns.Load(); old < slot.UnixNano() && !o.ns.CompareAndSwap(old, slot.UnixNano()); old = o.ns.Load() {
	}
}

// take returns the owed slot and clears it; false when there is none.
func (o *owedSlot) take() (time.Time, bool) {
	ns := o.ns.Swap(0)
	return time.Unix(0, ns).UTC(), ns != 0
}

// How a daemon scan ended (Daemon.scan).
const (
	scanSettled = iota // none of its slots left missed
	scanLeft           // some left missed: skipped (the lock held), cut short, left for later
	scanFailed         // the ledger could not be read, or the daemon is stopping
)

// What replayOwed did before a fire.
const (
	owedNone     = iota // nothing was owed, or the ledger could not be read: fire
	owedReplayed        // the owed slots are replayed (or expired by --replay): fire
	owedTookSlot        // they are still missed (or its home refused): the fire's slot was left behind them, not fired
)

// replayOwed replays the slots up to the owed one, if any, before the fire
// of slot, holding the task's turn (its fires wait). When that leaves any
// of them missed (the lock still held), the fire's own slot goes behind
// them: one scan up to it replays them all in order if the lock has come
// free meanwhile, and else leaves them all, slot too, owed, for the next
// fire or the next rescan. So no slot runs before one the task owes. When
// the ledger cannot be read, the slots stay owed and the fire goes on: it
// cannot run either, and it says so, is counted and noted as every fire
// the ledger cannot record (a shared ledger's fire runs nothing unclaimed).
// When the line's home is refused (homeRefused), nothing is replayed and
// the fire's slot is noted owed too: once the home is fixed, the next
// fire (or rescan) replays them all, oldest first.
//
// A rescan that came while the task's fires ran (pending, see rescanDue)
// is run here too, up to the slot before this fire's, when this fire holds
// the turn anyway (slots owed) or its line waits for the lock (it would
// wait for the fire before it all the same): the fires of a line whose job
// outlasts its period overlap for ever, and the rescan that waited for
// them to end never ran, an older missed slot (a failed one under
// --retry-failed, a replica's run found dead after the lease) starving
// behind ever newer fires until the daemon's next start.
func (d *Daemon) replayOwed(ctx context.Context, t Task, owed *owedSlot, turn *sync.RWMutex, slot time.Time, r rescanDue) int {
	if _, refused := d.homeRefused(t, slot); refused {
		owed.note(slot) // nothing runs there, owed or not: all wait for the home's fix
		return owedTookSlot
	}
	o, ok := owed.take()
	due := (ok || waits(t)) && r.pending.Swap(false)
	if (!ok && !due) || ctx.Err() != nil {
		if ok {
			owed.note(o)
		}
		if due {
			r.pending.Store(true)
		}
		return owedNone
	}
	upTo, skipped := o, o // the owed slots: missed at once
	if due {
		// The rescan's: the slots before this fire's, spared by
		// --tolerance but for the owed ones and those its loop skipped.
		upTo = slot.Add(-time.Nanosecond)
		if s := r.skipped(); s.After(skipped) {
			skipped = s
			if s.After(upTo) {
				skipped = upTo
			}
		}
	}
	turn.Lock()
	defer turn.Unlock()
	switch d.scan(ctx, t, upTo, skipped) {
	case scanSettled:
		return owedReplayed
	case scanFailed:
		if ok {
			owed.note(o)
		}
		return owedNone
	}
	if d.scan(ctx, t, slot, slot) != scanSettled {
		owed.note(slot)
	}
	return owedTookSlot
}

// rescanDue is a loop's rescan that came while the task's fires ran: set
// in pending, it waits for them to end, or for a fire that runs it first
// (replayOwed). skipped is how far its loop skipped slots (progress).
type rescanDue struct {
	pending *atomic.Bool
	skipped func() time.Time
}

// waits reports whether t's fires wait for the task's lock (--wait [DUR],
// or --on-busy wait on the line or as registered) rather than skip. Such a
// fire that runs a pending rescan first is held back as behind the task's
// replays: its --wait DUR counts from its run's start, after the scan.
func waits(t Task) bool {
	p := t.Req.OnBusy
	if p == "" {
		p = t.Def.OnBusy
	}
	return t.Req.Wait || p == "wait"
}

// scanWatch is the end of a task's rescan in progress (at most one runs at
// a time), for its fires: a fire that comes while it runs waits for it
// before it looks for owed slots. It looked first, found none, waited for
// the turn the scan held, and the scan then left slots owed (behind a slot
// held by a run still running): the fire ran its slot before them.
type scanWatch struct {
	mu    sync.Mutex
	ended chan struct{} // closed once the latest scan has ended; nil: none began
}

// begin notes a rescan beginning; the returned func notes its end, once
// what it left owed is noted.
func (w *scanWatch) begin() (end func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.ended = ch
	w.mu.Unlock()
	return func() { close(ch) }
}

// wait waits for the rescan in progress, if any, to end; true when one was
// in progress (the fire was held back behind it).
func (w *scanWatch) wait() bool {
	w.mu.Lock()
	ch := w.ended
	w.mu.Unlock()
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return false
	default:
		<-ch
		return true
	}
}
