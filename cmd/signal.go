package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// stopSignal is the cause of a command's context ending: a signal to
// catchup. It is context.Canceled too, for code that only asks that.
type stopSignal struct{ sig syscall.Signal }

func (s stopSignal) Error() string        { return s.sig.String() + " signal received" }
func (s stopSignal) Is(target error) bool { return target == context.Canceled }

// signalContext is signal.NotifyContext that keeps which signal arrived
// (context.Cause is a stopSignal), so a command stopped by one can exit
// 128+N as a shell would.
func signalContext(sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			if sig, ok := s.(syscall.Signal); ok {
				cancel(stopSignal{sig})
			} else {
				cancel(context.Canceled)
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

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
