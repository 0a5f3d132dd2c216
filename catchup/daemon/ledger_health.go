package daemon

import (
	"time"

	"github.com/catchup/catchup/catchup"
)

// ledgerHealth is whether the ledger records the daemon's fires: an outage
// is logged once as it begins (level=ERROR) and once as it ends, and its
// fires counted (/metrics), not told by /healthz (a restart would not fix
// the ledger).
type ledgerHealth struct {
	failingSince time.Time // real time of the first fire the ledger could not record; zero: recording
	unrecorded   int64     // fires the ledger could not record, since the daemon started
	during       int64     // of them, in the current outage
	// waiting are the fires waiting for the ledger past the bound, and
	// when each began to wait (ledger_wait.go); waitBegan, when the first
	// of those waiting at a time began.
	waiting   map[*ledgerWait]time.Time
	waitBegan time.Time
}

// ledgerOutcome notes whether the ledger recorded a fire (res, err: its
// catchup.Run's).
func (d *Daemon) ledgerOutcome(task string, slot time.Time, res catchup.RunResult, err error) {
	d.health.mu.Lock()
	defer d.health.mu.Unlock()
	l := &d.health.ledger
	switch {
	case res.LedgerFault != nil:
		l.unrecorded++
		l.during++
		if l.failingSince.IsZero() {
			l.failingSince = time.Now()
			d.cfg.Log.Error("the ledger cannot record fires: they are not run (a shared ledger, --strict) or run unrecorded "+
				"until it can; "+res.LedgerFault.Error(), "event", "ledger", "task", task, "slot", slot.Format(time.RFC3339))
		}
	case err == nil && res.Run.ID != 0:
		d.ledgerBack(task, "slot", slot.Format(time.RFC3339))
	}
}

// ledgerRecords notes that a scan of the task found the ledger recording
// (it wrote this boot's sighting, and recorded this host's notes of
// unrecorded fires, if any): an outage ends then, not only at the task's
// next fire (a day away, for a daily task).
func (d *Daemon) ledgerRecords(task string) {
	d.health.mu.Lock()
	defer d.health.mu.Unlock()
	d.ledgerBack(task, "by", "scan")
}

// ledgerBack ends the outage in progress, if any, and logs its end; under
// health.mu.
func (d *Daemon) ledgerBack(task string, args ...any) {
	l := &d.health.ledger
	if l.failingSince.IsZero() {
		return
	}
	d.cfg.Log.Info("the ledger records fires again", append([]any{"event", "ledger", "task", task}, append(args,
		"unrecorded", l.during, "seconds", time.Since(l.failingSince).Seconds())...)...)
	l.failingSince, l.during = time.Time{}, 0
}

// checkClock logs a warning when this host's clock is too far off a
// shared ledger's server's (catchup.ClockWatch): at the start, as the
// ledger's open read the server's clock, then as each fire's job starts,
// its claim having just read it again (after the job, hours later, the
// reading would be carried forward over a suspend the monotonic clock does
// not count); said once, and again only once it was fine in between.
func (d *Daemon) checkClock() {
	if msg := d.clock.Check(d.cfg.Store, d.cfg.Machine); msg != "" {
		d.cfg.Log.Warn(msg, "event", "warning")
	}
}
