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

// TestOwedAlertOfAnEarlierProcessOfThisPid: an owed alert that an earlier
// boot's process of this pid left where this process's next one would go
// is passed by (a new name), and paid by this process's next scan; its
// own, which it still holds, is left to it.
func TestOwedAlertOfAnEarlierProcessOfThisPid(t *testing.T) {
	o := newOwedFixture(t)
	pid := os.Getpid()
	first := o.owe(t, pid, 1)
	o.expireAs(t, pid, 1)
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	(&owedAlertFile{path: first}).paid(o.m)
	left := filepath.Join(o.m.LockDir, fmt.Sprintf("%s%d.%d%s", owedAlertPrefix, pid, owedAlertSeq.Load()+1, owedAlertSuffix))
	if err := os.WriteFile(left, b, 0o600); err != nil {
		t.Fatal(err)
	}
	mine := o.owe(t, pid, 2)
	if mine == left {
		t.Fatalf("the owed alert was written over the one left at %s", left)
	}
	o.m.PID = pid
	payOwedAlerts(context.Background(), o.st, o.m)
	if got, want := o.sent(t), "job|1|2026-03-01T01:00:00Z|host-down\n"; got != want {
		t.Errorf("alerts sent %q, want the earlier process's: %q; notices %q", got, want, o.notices)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("this process's own owed alert, still held: %v", err)
	}
	(&owedAlertFile{path: mine}).paid(o.m)
}
