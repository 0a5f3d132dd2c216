package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOwedAlertOfFailedScanPaidInTheSameProcess: a daemon runs its scans in
// one long-lived process. One that fails after its first batch of
// expiries, before its alert (a ledger fault), leaves that batch's alert
// owed under the daemon's own pid, which stays alive: the daemon's next
// scan must pay it, not leave it until the daemon's restart (weeks later).
// Before, every scan took the file for a live scan's and left it.
func TestOwedAlertOfFailedScanPaidInTheSameProcess(t *testing.T) {
	f := newRunFixture(t, "2026-01-01T00:00:30Z")
	req := f.request(t)
	req.Schedule = mustSchedule(t, "* * * * *", "UTC")
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = f.now.Add(10 * 24 * time.Hour)
	alerts := filepath.Join(t.TempDir(), "alerts")
	sr := scanRequest()
	sr.MaxReplays = 1
	sr.NotifyCmd = `echo "$CATCHUP_EXPIRED" >> ` + alerts
	f.m.PID = os.Getpid() // the daemon's, for both scans
	if _, err := Scan(context.Background(), &failingSecondBatch{Store: f.st}, f.m, sr); err == nil {
		t.Fatal("the scan whose ledger failed between two batches reported no error")
	}
	if _, err := os.Stat(alerts); !os.IsNotExist(err) {
		t.Fatalf("the failed scan alerted (%v): this test needs it not to", err)
	}
	if _, err := Scan(context.Background(), f.st, f.m, sr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(alerts)
	if err != nil {
		t.Fatal(err)
	}
	want := 10*24*60 - 5 - 1 - expireBatch // the next scan's own expiries
	if got, w := string(b), fmt.Sprintf("%d\n%d\n", expireBatch, want); got != w {
		t.Errorf("alerts sent %q, want the failed scan's batch, then the next scan's own: %q", got, w)
	}
	if left, _ := filepath.Glob(filepath.Join(f.m.LockDir, owedAlertPrefix+"*")); len(left) != 0 {
		t.Errorf("owed alerts left: %q", left)
	}
}
