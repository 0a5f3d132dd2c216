package runner

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// stopSig is a stop's cause that names the signal that ended it, as
// cmd's stopSignal is (StopBySignal).
type stopSig struct{ sig os.Signal }

func (s stopSig) Error() string         { return s.sig.String() + " signal received" }
func (s stopSig) StopSignal() os.Signal { return s.sig }

// TestStopAfterTheStartReachesTheJob: a stop that ends after the runner's
// last look before the fork (a stop signal's handler that ran late, on a
// loaded machine, the signal having come before the runner caught
// signals) reaches the job that started, when it names a signal the run
// forwards; any other stop changes nothing for a job that runs. Before,
// the runner looked at the stop before the fork only: the job started,
// the signal was never forwarded, and it ran to its end while catchup had
// been told to stop.
func TestStopAfterTheStartReachesTheJob(t *testing.T) {
	tests := map[string]struct {
		cause   error
		signals []os.Signal
		stopped bool // the job died of SIGTERM, else ran to its end
	}{
		"a stop signal the run forwards":         {cause: stopSig{syscall.SIGTERM}, stopped: true},
		"a stop signal of a custom list":         {cause: stopSig{syscall.SIGUSR1}, signals: []os.Signal{syscall.SIGUSR1}, stopped: true},
		"a stop with no signal":                  {cause: context.Canceled},
		"a stop signal the run does not forward": {cause: stopSig{syscall.SIGTERM}, signals: []os.Signal{}},
		"a stop signal not in a custom list":     {cause: stopSig{syscall.SIGTERM}, signals: []os.Signal{syscall.SIGUSR1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			stop, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var told []os.Signal
			// A job the stop must reach runs 20 s unless it does: a
			// deadline for the forward that fails with the job's own exit.
			// One it must leave alone runs 1 s, long past the supervisor's
			// first look at the stop.
			script := "sleep 1; exit 5"
			if tc.stopped {
				script = "sleep 20; exit 5"
			}
			res := run(t, Config{Argv: sh(script), Stop: stop, Signals: tc.signals,
				OnStart:  func(int) { cancel(tc.cause) }, // after the fork: no last look sees it
				OnSignal: func(s os.Signal) { told = append(told, s) }})
			if !res.Started {
				t.Fatalf("not started: %+v", res)
			}
			if !tc.stopped {
				if res.ExitCode != 5 || res.Signal != 0 || res.Forwarded != nil || len(told) != 0 {
					t.Fatalf("ExitCode=%d Signal=%d Forwarded=%v OnSignal told %v; want 5, 0, nil, nothing: "+
						"a stop the run forwards no signal for leaves a running job alone", res.ExitCode, res.Signal, res.Forwarded, told)
				}
				return
			}
			want := tc.cause.(stopSig).sig
			sig := int(want.(syscall.Signal))
			if res.ExitCode != 128+sig || res.Signal != sig {
				t.Fatalf("ExitCode=%d Signal=%d; want %d, %d: the stop's signal never reached the job, which ran to its end",
					res.ExitCode, res.Signal, 128+sig, sig)
			}
			if res.Forwarded != want || len(told) != 1 || told[0] != want {
				t.Fatalf("Forwarded=%v OnSignal told %v; want %v, once", res.Forwarded, told, want)
			}
		})
	}
}

// TestStopSignalForwardedOnce: a stop signal that reaches the runner's
// own handler and ends the stop too is forwarded once; one that came
// before the runner caught signals is forwarded when the stop ends, and a
// later signal is forwarded again (it is another stop, never taken for
// the first). OnSignal counts the forwards (the shell may run one trap for
// two signals that come together); the job's traps show it got them.
func TestStopSignalForwardedOnce(t *testing.T) {
	tests := map[string]struct {
		early bool // the first signal comes before Run catches signals
		want  int  // signals forwarded
	}{
		"the signal reaches the runner and ends the stop": {want: 1},
		"the signal came first then another":              {early: true, want: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// handler plays cmd's: it ends the stop with the signal it caught.
			handler := make(chan os.Signal, 4)
			signal.Notify(handler, syscall.SIGTERM)
			defer signal.Stop(handler)
			stop, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.early {
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
				waitSignal(t, handler) // seen, the stop not yet ended: its handler runs late
			}
			end := filepath.Join(t.TempDir(), "end")
			out := newSyncBuffer("ready")
			var forwards atomic.Int32
			ended := func() {
				if err := os.WriteFile(end, nil, 0o600); err != nil {
					t.Error(err)
				}
			}
			defer ended() // a failure ends the job too
			done := make(chan Result, 1)
			go func() {
				res, _ := Run(context.Background(), Config{Stop: stop, Stdout: out, OnSignal: func(os.Signal) { forwards.Add(1) },
					Argv: sh(`trap 'echo term' TERM; echo ready; while [ ! -e "$1" ]; do sleep 0.02; done`, end)})
				done <- res
			}()
			<-out.ready
			if !tc.early {
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
				waitSignal(t, handler)
			}
			cancel(stopSig{syscall.SIGTERM})
			waitOutput(t, out, "term", 1)
			if tc.early {
				_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
				waitOutput(t, out, "term", 2)
			}
			ended()
			var res Result
			select {
			case res = <-done:
			case <-time.After(hangGuard):
				t.Fatalf("Run did not return within %v of the job's end", hangGuard)
			}
			if n := int(forwards.Load()); n != tc.want || res.Forwarded != syscall.SIGTERM {
				t.Fatalf("forwarded %d signals (Forwarded=%v), want %d SIGTERM: a stop seen as a signal and as the "+
					"stop's cause is one stop; output %q", n, res.Forwarded, tc.want, out.String())
			}
		})
	}
}

// waitSignal waits for the test's own handler to catch a signal.
func waitSignal(t *testing.T, ch <-chan os.Signal) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("the signal sent to this process did not arrive within %v", hangGuard)
	}
}

// waitOutput waits until out holds n lines that are word.
func waitOutput(t *testing.T, out *syncBuffer, word string, n int) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if strings.Count(out.String(), word+"\n") >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job did not trap %d %s within %v; output %q", n, word, hangGuard, out.String())
		}
	}
}
