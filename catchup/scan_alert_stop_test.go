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

// TestScanAlertTellsStopOfTheSignalItForwards: a stop signal reaches
// catchup while scan's missed-slot alert runs. The runner forwards it to
// the alert's command, which dies of it, and the command's handler cancels
// the scan. When that handler's goroutine runs late (a loaded machine),
// scan saw the alert cut short but went on with its context alive, and
// `catchup scan` exited 0 after a SIGTERM (notify_owed_alert_scan_stopped_in_alert,
// 1 in 30-60 under load). The runner now tells the machine's Stop of each
// signal it forwards to an alert, as to a job; here Stop is the only thing
// that hears it, as if the handler's goroutine never ran.
func TestScanAlertTellsStopOfTheSignalItForwards(t *testing.T) {
	// Serial: it sends SIGTERM to this process, with a handler of its own.
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T14:30:00Z") // 11:00 to 14:00 missed, older than the window below
	held := make(chan os.Signal, 4)
	signal.Notify(held, syscall.SIGTERM)
	defer signal.Stop(held)
	told := make(chan os.Signal, 4)
	f.m.Stop = func(sig os.Signal) { told <- sig }

	alerting, release := filepath.Join(f.job.dir, "alerting"), filepath.Join(f.job.dir, "release")
	req := scanRequest()
	req.MaxAge = time.Minute
	req.NotifyCmd = `touch ` + alerting + `; while [ ! -e ` + release + ` ]; do sleep 0.05; done`
	done := make(chan error, 1)
	go func() {
		_, err := Scan(context.Background(), f.st, f.m, req)
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(alerting); err == nil {
			break
		}
		if time.Now().After(deadline) {
			os.WriteFile(release, nil, 0o600)
			<-done
			t.Fatal("the missed-slot alert did not start within 30s")
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		os.WriteFile(release, nil, 0o600)
		<-done
		t.Fatal("the alert was not cut short within 30s of SIGTERM")
	}
	select {
	case sig := <-told:
		if sig != syscall.SIGTERM {
			t.Errorf("Stop told of %v, want SIGTERM", sig)
		}
	default:
		t.Error("the alert's command died of a forwarded SIGTERM, and the machine's Stop was never told: " +
			"scan goes on as if no stop came (exit 0)")
	}
}
