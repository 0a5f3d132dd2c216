package catchup

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestScanStopsWhenTheRunnerForwardsAStop: a stop signal reaches catchup
// twice, through the runner, which forwards it to the job, and through the
// command's handler, whose goroutine cancels the scan's context. When that
// goroutine runs late (a loaded machine), the job had already died of the
// signal and scan started its next replay, which no signal ever reached: it
// ran until it ended by itself (the scan_sigterm script hung so). The
// runner now tells the machine's Stop of each signal it forwards, before
// the job can die of it; here Stop is the only thing that cancels the
// scan, as if the handler's goroutine never ran.
func TestScanStopsWhenTheRunnerForwardsAStop(t *testing.T) {
	// Serial: it sends SIGTERM to this process, with a handler of its own.
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", `[ "$CATCHUP_TRIGGER" = replay ] || exit 0; echo "$CATCHUP_SLOT" >> started.log; ` +
		`while [ ! -e release ]; do sleep 0.05; done`}
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T12:30:00Z") // 11:00 and 12:00 missed
	// The command's own handler: it keeps the test process alive, and
	// never cancels anything.
	held := make(chan os.Signal, 4)
	signal.Notify(held, syscall.SIGTERM)
	defer signal.Stop(held)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	f.m.Stop = func(sig os.Signal) { cancel(context.Canceled) }

	started := filepath.Join(f.job.dir, "started.log")
	release := filepath.Join(f.job.dir, "release")
	done := make(chan error, 1)
	go func() {
		_, err := Scan(ctx, f.st, f.m, scanRequest())
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, _ := os.ReadFile(started); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first replay did not start within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		os.WriteFile(release, nil, 0o600) // let the scan end, then fail
		<-done
		t.Fatal("scan did not stop within 30s of SIGTERM")
	}
	b, _ := os.ReadFile(started)
	if got := string(b); got != "2026-03-01T11:00:00Z\n" {
		t.Errorf("replays started: %q; want only 11:00's (a stopped scan starts no other)", got)
	}
}
