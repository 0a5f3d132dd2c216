package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunTimeout(t *testing.T) {
	res := run(t, Config{Argv: sh("sleep 10"), Timeout: 200 * time.Millisecond})
	if !res.TimedOut || res.ExitCode != 124 {
		t.Fatalf("TimedOut=%v ExitCode=%d, want true, 124", res.TimedOut, res.ExitCode)
	}
	if res.Signal != int(syscall.SIGTERM) {
		t.Errorf("Signal = %d, want SIGTERM", res.Signal)
	}
	if res.Forwarded != nil {
		t.Errorf("Forwarded = %v: the timeout's own SIGTERM is not a signal from outside", res.Forwarded)
	}
}

func TestRunTimeoutKillsAfterKillAfter(t *testing.T) {
	const killAfter = 300 * time.Millisecond
	// The child must have set its trap before the timeout fires; when a
	// busy machine delays it, try again with a longer timeout.
	for timeout := time.Second; ; timeout *= 4 {
		out := newSyncBuffer("ready")
		start := time.Now()
		res := run(t, Config{
			Argv:      sh(`trap '' TERM; echo ready; sleep 30`),
			Stdout:    out,
			Timeout:   timeout,
			KillAfter: killAfter,
		})
		if !strings.Contains(out.String(), "ready") {
			if timeout >= 30*time.Second {
				t.Fatalf("the child never set its trap within %v", timeout)
			}
			continue
		}
		if !res.TimedOut || res.ExitCode != 124 || res.Signal != int(syscall.SIGKILL) {
			t.Fatalf("TimedOut=%v ExitCode=%d Signal=%d, want true, 124, 9", res.TimedOut, res.ExitCode, res.Signal)
		}
		// Timers never fire early, so this lower bound cannot flake.
		if elapsed := time.Since(start); elapsed < timeout+killAfter {
			t.Errorf("returned after %v, before timeout+KillAfter", elapsed)
		}
		return
	}
}

// A grandchild that ignores SIGTERM and holds the pipes must still be
// SIGKILLed after KillAfter, even though the main child died of SIGTERM.
// The case needs the grandchild to have set its trap before the timeout
// fires; on a busy machine it may not have, so the run is tried again
// with a longer timeout until the grandchild was ready in time.
func TestRunTimeoutKillsWholeGroup(t *testing.T) {
	for timeout := 500 * time.Millisecond; ; timeout *= 4 {
		out := newSyncBuffer("\n")
		res := run(t, Config{
			Argv:       sh(`sh -c 'trap "" TERM; echo $$; exec sleep 30' & wait`),
			Stdout:     out,
			Timeout:    timeout,
			KillAfter:  300 * time.Millisecond,
			OutputWait: 100 * time.Millisecond,
		})
		t.Cleanup(func() { _ = syscall.Kill(-res.Pid, syscall.SIGKILL) })
		if !res.TimedOut || res.ExitCode != 124 {
			t.Fatalf("TimedOut=%v ExitCode=%d", res.TimedOut, res.ExitCode)
		}
		printed := strings.TrimSpace(out.String())
		if printed == "" {
			if timeout >= 30*time.Second {
				t.Fatalf("the grandchild never printed its pid within %v", timeout)
			}
			t.Logf("grandchild not ready within %v; again with a longer timeout", timeout)
			continue
		}
		pid, err := strconv.Atoi(printed)
		if err != nil {
			t.Fatalf("grandchild pid %q: %v", printed, err)
		}
		waitGone(t, pid)
		return
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := newSyncBuffer("ready")
	go func() {
		<-out.ready
		cancel()
	}()
	res := runCtx(t, ctx, Config{
		Argv:   sh(`echo ready; sleep 30`),
		Stdout: out,
	})
	if res.TimedOut || res.Signal != int(syscall.SIGTERM) || res.ExitCode != 143 {
		t.Fatalf("TimedOut=%v Signal=%d ExitCode=%d, want false, 15, 143", res.TimedOut, res.Signal, res.ExitCode)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	tests := map[string]struct {
		signals []os.Signal
		send    syscall.Signal
		trap    string
	}{
		"custom list":           {signals: []os.Signal{syscall.SIGUSR1}, send: syscall.SIGUSR1, trap: "USR1"},
		"default list has HUP":  {signals: nil, send: syscall.SIGHUP, trap: "HUP"},
		"default list has QUIT": {signals: nil, send: syscall.SIGQUIT, trap: "QUIT"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out := newSyncBuffer("ready")
			go func() {
				<-out.ready
				_ = syscall.Kill(os.Getpid(), tc.send)
			}()
			script := fmt.Sprintf(`trap 'exit 42' %s; echo ready; while :; do sleep 0.05; done`, tc.trap)
			res := run(t, Config{Argv: sh(script), Stdout: out, Signals: tc.signals})
			if res.ExitCode != 42 || res.Signal != 0 {
				t.Fatalf("ExitCode=%d Signal=%d, want 42, 0 (signal not forwarded?)", res.ExitCode, res.Signal)
			}
			if res.Forwarded != tc.send {
				t.Errorf("Forwarded = %v, want %v", res.Forwarded, tc.send)
			}
		})
	}
}

// TestRunClosedStdout runs Run in a helper process whose own stdout is a
// pipe with no reader: the copy to os.Stdout fails with EPIPE, and the
// helper must neither die of SIGPIPE nor stop draining the child.
func TestRunClosedStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperClosedStdout$")
	cmd.Env = append(os.Environ(), "RUNNER_TEST_HELPER=closed-stdout")
	cmd.Stdout = w
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		_ = cmd.Process.Kill()
		t.Fatal("helper hung")
	}
	if err != nil {
		t.Fatalf("helper failed: %v; stderr:\n%s", err, stderr.String())
	}
	if want := "result exit=7 bytes=1000000"; !strings.Contains(stderr.String(), want) {
		t.Fatalf("helper stderr = %q, want it to contain %q", stderr.String(), want)
	}
}

func TestHelperClosedStdout(t *testing.T) {
	if os.Getenv("RUNNER_TEST_HELPER") != "closed-stdout" {
		t.Skip("helper process for TestRunClosedStdout")
	}
	res, err := Run(context.Background(), Config{
		Argv:     sh(`head -c 1000000 /dev/zero; exit 7`),
		Stdout:   os.Stdout,
		TailSize: 16,
	})
	fmt.Fprintf(os.Stderr, "result exit=%d bytes=%d err=%v\n", res.ExitCode, res.StdoutBytes, err)
	os.Exit(0) // the test framework would write to the dead stdout
}
