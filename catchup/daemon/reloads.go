package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// reloadRetry is how soon a reload the ledger refused (retryable) is tried
// again.
var reloadRetry = 10 * time.Second

// LedgerFault marks an error of Config.Load as the ledger's, not the
// crontab's: the tasks read could not be registered (a full disk, a SQLite
// file locked past its busy timeout or read-only, a server that answered
// with an error). The reload is tried again, as one refused for an
// unreachable shared ledger is. Its text is Err's.
type LedgerFault struct{ Err error }

func (e LedgerFault) Error() string { return e.Err.Error() }
func (e LedgerFault) Unwrap() error { return e.Err }

// retryable reports whether a refused reload is tried again: the ledger
// refused it, not the crontab.
func retryable(err error) bool {
	var lf LedgerFault
	return errors.Is(err, store.ErrLedgerUnreachable) || errors.As(err, &lf)
}

// reloads runs Run's reloads one at a time, each reading the crontabs
// (Config.Load, which registers their tasks: it may wait for the ledger up
// to its busy timeout) in a goroutine of its own, so that Run's loop goes
// on meanwhile: it acts on a stop signal at once, and /healthz sees it go
// round. Only Run's loop calls its methods; it applies the tasks read.
type reloads struct {
	d       *Daemon
	tasks   *tasks          // the loops running: where a changed line's new loop may fire from (firesFrom)
	ctx     context.Context // Load's: its writes give up once a stop came
	done    chan reloaded   // buffered: a reload a stop abandoned ends without a reader
	loading bool            // a reload is reading the crontabs
	again   bool            // another was asked for meanwhile: it starts once this one ends
	retryAt time.Time       // a reload the ledger refused is tried again then
}

// reloaded is what a reload read, and when it began reading.
type reloaded struct {
	tasks []Task
	err   error
	read  time.Time
}

// start reads the crontabs again, or once the reload in progress ends.
func (r *reloads) start() {
	if r.d.cfg.Load == nil {
		return
	}
	if r.loading {
		r.again = true
		return
	}
	r.loading, r.retryAt = true, time.Time{}
	r.d.cfg.Log.Info("reading the crontabs again", "event", "reload")
	var read time.Time // the clock before the crontabs are read: a slot after it is the new tasks' to fire
	if now := r.d.cfg.Machine.Now; now != nil {
		read = now()
	}
	from := r.tasks.firesFrom(read)
	go func() {
		ts, err := r.d.cfg.Load(r.ctx, from)
		r.done <- reloaded{ts, err, read}
	}()
}

// retryDue reports whether a reload the ledger refused is due again.
func (r *reloads) retryDue() bool {
	return !r.retryAt.IsZero() && !time.Now().Before(r.retryAt)
}

// finish applies what a reload read to s, or logs why it was refused (the
// tasks stay as they were), and starts the reload asked for meanwhile.
func (r *reloads) finish(s *tasks, res reloaded) {
	r.loading = false
	if res.err != nil {
		msg := "reload refused, the tasks stay as they were: " + res.err.Error()
		if retryable(res.err) { // not the crontab's fault: try it again
			r.retryAt = time.Now().Add(reloadRetry)
			msg += fmt.Sprintf("; trying again in %s", catchup.FormatDuration(reloadRetry))
		}
		r.d.cfg.Log.Error(msg, "event", "error")
	} else {
		s.set(res.tasks, res.read)
		r.d.cfg.Log.Info("crontabs reloaded", "event", "reload", "tasks", len(res.tasks))
	}
	if r.again {
		r.again = false
		r.start()
	}
}
