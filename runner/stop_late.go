package runner

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"slices"
)

// StopBySignal is the cause (context.Cause) of a Config.Stop that a stop
// signal to this process ended: StopSignal is that signal. A caller that
// catches its stop signals itself gives its stop's cause this method, so
// that a signal its handler saw before Run caught signals, and that ended
// the stop only once the command had started, still reaches the command
// (see Config.Stop). It is not named Signal: every os.Signal has a Signal
// method of another signature.
type StopBySignal interface {
	StopSignal() os.Signal
}

// stopEnded handles the end of the caller's stop while the command runs.
//
// Invariants:
//   - a stop whose cause names no signal the run forwards (a daemon's, a
//     scan's own, a plain cancel) changes nothing: a running command is
//     ended only by ctx, the timeout, or a signal forwarded;
//   - the stop's signal is forwarded, as one caught would be, only when
//     no signal was forwarded yet: one caught is that stop, or a later one,
//     and the command has it; so one stop is forwarded once;
//   - nor once ctx has ended: Run is terminating the group for it (a
//     caller may pass one context as both).
func (s *supervisor) stopEnded(ctx context.Context, sigCh <-chan os.Signal) {
	var by StopBySignal
	if s.forwarded != nil || ctx.Err() != nil || !errors.As(context.Cause(s.stop), &by) {
		return
	}
	sig := by.StopSignal()
	if !slices.Contains(s.signals, sig) {
		return
	}
	// The caller's handler got sig from os/signal, which hands a signal to
	// every channel that wants it under one lock, the lock signal.Stop
	// takes (of a channel never registered it does nothing else): once it
	// is taken, that hand-out is over, and sigCh, if it was registered in
	// time, holds the signal. Then it is forwarded as caught, and not
	// again as the stop's cause, which the handler may see first.
	signal.Stop(make(chan os.Signal))
	select {
	case caught := <-sigCh:
		s.forward(caught)
	default:
		s.forward(sig)
	}
}
