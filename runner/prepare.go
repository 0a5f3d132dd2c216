package runner

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Prepare starts, in the background, the set-up that a process's first Run
// would otherwise do on its critical path; Run waits for it. A command
// calls it early (catchup run, before opening its ledger) so that the
// set-up overlaps other work; calling it is never required.
func Prepare() { prepared() }

// prepared does the set-up once per process and returns a channel closed
// when it is done:
//   - SIGPIPE is caught for the rest of the process (the channel is never
//     read), which turns it into EPIPE: a reader of catchup's output that
//     goes away must not kill catchup before it records the outcome. Once
//     per process, not per Run: each Notify and Stop of a signal not caught
//     yet waits for the runtime's signal thread, twice per replayed slot.
//   - os/exec's first Start probes whether pidfds work by cloning a child
//     that exits at once (~0.1 ms); os.FindProcess runs the same probe.
var prepared = sync.OnceValue(func() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Release()
		}
	}()
	return done
})
