package daemon

import (
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
)

// ledgerWaitBound is how long a fire waits for its first ledger write
// before the ledger counts as failing.
const ledgerWaitBound = 10 * time.Second

// ledgerWait watches one fire's wait for the ledger, from its start until
// its first claim returns (or its job starts, or it ends), but for its
// wait for its task's lock, or a scan's, until its sighting of this boot
// returns; or one later write of the fire's or the scan's (write: an
// outcome's, a heartbeat's), from its start until it returns: another process holding the ledger locked (a
// backup, sqlite3 in a transaction, a migration's LOCK TABLE) holds the
// fire there, on SQLite past its busy timeout (the daemon's one
// connection), with nothing failed to count. Once that wait passes the
// daemon's ledgerWaitBound, the ledger counts as failing from the wait's
// start (Lag.LedgerFailing) and a warning says so, once for the fires
// waiting at a time; the fire itself still waits, its order and its slot
// kept.
type ledgerWait struct {
	d          *Daemon
	task       string
	slot       time.Time
	mu         sync.Mutex
	start      time.Time   // real time the current wait began
	timer      *time.Timer // nil: not waiting (its lock's wait, or over)
	waits      int         // the waits begun: the timer's callback names its own
	over, late bool
	write      string // "": the first write; else the later one watched (catchup.WriteOutcome...)
}

// watchLedger starts watching the fire of slot's wait for the ledger (a
// zero slot: the task's scan's, its fires held behind it, until its
// sighting of this boot returns), and has m tell it of its claims and lock
// waits.
func (d *Daemon) watchLedger(m *catchup.Machine, task string, slot time.Time) *ledgerWait {
	w := &ledgerWait{d: d, task: task, slot: slot}
	w.wait()
	m.Answered = w.end
	m.LedgerWrite = func(what string) func() {
		later := &ledgerWait{d: d, task: task, slot: slot, write: what}
		later.wait()
		return later.end
	}
	m.LockWait = func(waiting bool) {
		if waiting {
			w.pause()
		} else {
			w.wait()
		}
	}
	return w
}

// wait starts (again) a wait for the ledger, unless the watch is over.
func (w *ledgerWait) wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over || w.timer != nil {
		return
	}
	w.start = time.Now()
	w.waits++
	n := w.waits
	w.timer = time.AfterFunc(w.d.ledgerWaitBound, func() { w.passed(n) })
}

// passed counts wait n once it has lasted the bound (unless it ended, or
// another began, meanwhile: a timer stopped too late still calls it).
func (w *ledgerWait) passed(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil || w.waits != n || w.late {
		return
	}
	w.late = true
	w.d.ledgerWaiting(w, true)
}

// pause ends the current wait (the fire waits for its task's lock).
func (w *ledgerWait) pause() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stop()
}

// end is the end of the watch: the fire's first claim returned, its job
// started or the fire is over.
func (w *ledgerWait) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.over = true
	w.stop()
}

// stop stops the timer and uncounts a wait that passed the bound; under mu.
func (w *ledgerWait) stop() {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.late {
		w.late = false
		w.d.ledgerWaiting(w, false)
	}
}

// ledgerWaiting counts (on) or uncounts a fire waiting for the ledger past
// the bound: the first of the fires waiting at a time is warned of, the
// end of their wait said once the last one's claim returned.
func (d *Daemon) ledgerWaiting(w *ledgerWait, on bool) {
	d.health.mu.Lock()
	defer d.health.mu.Unlock()
	l := &d.health.ledger
	if on {
		if l.waiting == nil {
			l.waiting = map[*ledgerWait]time.Time{}
		}
		if len(l.waiting) == 0 {
			l.waitBegan = w.start
			d.cfg.Log.Warn("fires wait for the ledger: "+w.what()+" has waited "+catchup.FormatDuration(d.ledgerWaitBound)+
				" for "+w.which()+" (another process holds the ledger locked?); they run once it answers, late",
				append([]any{"event", "ledger", "task", w.task}, w.where()...)...)
		}
		l.waiting[w] = w.start
		return
	}
	if _, ok := l.waiting[w]; !ok {
		return
	}
	delete(l.waiting, w)
	if len(l.waiting) == 0 {
		d.cfg.Log.Info("fires no longer wait for the ledger", append(append([]any{"event", "ledger", "task", w.task},
			w.where()...), "seconds", time.Since(l.waitBegan).Seconds())...)
	}
}

// waitingSince is the start of the longest wait for the ledger past the
// bound in progress (zero: none); under health.mu.
func (l *ledgerHealth) waitingSince() time.Time {
	var since time.Time
	for _, s := range l.waiting {
		if since.IsZero() || s.Before(since) {
			since = s
		}
	}
	return since
}

// what names the one waiting, and where its log fields.
func (w *ledgerWait) what() string {
	if w.slot.IsZero() {
		return "the task's scan (its fires held behind it)"
	}
	return "a fire"
}

// which names the write waited for.
func (w *ledgerWait) which() string {
	if w.write == "" {
		return "its first write"
	}
	return "its " + w.write + "'s write"
}

func (w *ledgerWait) where() []any {
	if w.slot.IsZero() {
		return []any{"by", "scan"}
	}
	return []any{"slot", w.slot.Format(time.RFC3339)}
}
