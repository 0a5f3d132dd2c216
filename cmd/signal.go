package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/catchup/catchup/runner"
)

// stopSignal is the cause of a command's context ending: a signal to
// catchup. It is context.Canceled too, for code that only asks that. The
// runner forwards it to a job that started before this handler ended the
// context (runner.StopBySignal): one the signal came before the runner
// caught signals for, on a loaded machine, is stopped all the same.
type stopSignal struct{ sig syscall.Signal }

var _ runner.StopBySignal = stopSignal{}

func (s stopSignal) Error() string         { return s.sig.String() + " signal received" }
func (s stopSignal) Is(target error) bool  { return target == context.Canceled }
func (s stopSignal) StopSignal() os.Signal { return s.sig }

// signalContext is signal.NotifyContext that keeps which signal arrived
// (context.Cause is a stopSignal), so a command stopped by one can exit
// 128+N as a shell would.
//
// The handlers are installed in the background: the first signal.Notify of
// a process waits for the runtime to start a thread that owns the signal
// mask, 0.2-0.3 ms that `catchup run` overlaps with opening its ledger.
// caught is closed once they are in place; until then a signal ends
// catchup as it would any program, so a command waits for caught before
// it writes anything (see awaitSignals).
//
// stopWith ends ctx as that signal would have: the runner calls it
// (catchup.Machine.Stop) with a signal it forwards to a job, which this
// handler's goroutine may not have seen yet. The first cause stays.
//
// The signals stay caught until the process exits (main exits with the
// command's status as soon as it returns): one that arrives as catchup
// exits must not end it by the default action, with another status than
// the job's. Stopping them would also wait for the runtime's signal loop
// to go idle: about 0.2 ms of every fire, 2-3% of `catchup run`.
//
// endOnStop is for a command that only reads (ls, explain, calendar...):
// from its call on, a stop signal, or one that came before it, ends
// catchup at once through exit, with 128+N as a shell would, since the
// readers' work does not look at ctx (counting years of a task's minutes
// went on deaf to Ctrl-C). A command that records anything never calls
// it: it ends when it has recorded what the stop leaves, unless that
// does not come: a second stop signal, or stopDeadline with no job of its
// own running, ends it all the same (watchStop).
func signalContext(exit func(int), sigs ...os.Signal) (ctx context.Context, caught <-chan struct{}, stopWith func(os.Signal), endOnStop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var armed atomic.Bool
	var arrived atomic.Int32 // the stop signal that arrived, 0 before one
	var once sync.Once
	end := func() {
		if n := arrived.Load(); n != 0 && armed.Load() {
			once.Do(func() { exit(128 + int(n)) })
		}
	}
	endOnStop = func() { armed.Store(true); end() }
	stopWith = func(s os.Signal) {
		if sig, ok := s.(syscall.Signal); ok {
			cancel(stopSignal{sig})
		} else {
			cancel(context.Canceled)
		}
	}
	ch := make(chan os.Signal, 1)
	ready := make(chan struct{})
	go func() {
		signal.Notify(ch, sigs...)
		close(ready)
		var first syscall.Signal // the stop signal that starts watchStop
		done := ctx.Done()
		for first == 0 {
			select {
			case s := <-ch:
				stopWith(s) // the first cause stays
				if n, ok := s.(syscall.Signal); ok {
					arrived.CompareAndSwap(0, int32(n))
					end()
					if !reloads(n) {
						first = n
					}
				}
			case <-done:
				// stopWith by the runner, with a signal it caught: it is
				// on its way to ch too, and is the first, not a second one.
				done = nil
				if sig, ok := stoppedBy(ctx); ok && !reloads(sig) {
					first = sig
					select {
					case <-ch:
					case <-time.After(time.Second):
					}
				}
			}
		}
		watchStop(first, ch, func(code int) { once.Do(func() { exit(code) }) }, stopDeadline)
	}()
	return ctx, ready, stopWith, endOnStop
}

// hupReloads is set while this process may be `catchup daemon`, whose
// SIGHUP is a reload, not a stop: watchStop neither starts nor ends at one.
var hupReloads atomic.Bool

func reloads(sig syscall.Signal) bool { return sig == syscall.SIGHUP && hupReloads.Load() }

// stoppedBy is the signal that ended ctx, and whether one did.
func stoppedBy(ctx context.Context) (syscall.Signal, bool) {
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) {
		return s.sig, true
	}
	return 0, false
}

// signalName is the name people know a stop signal by.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}
