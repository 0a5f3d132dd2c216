package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestOwedAlertOfAnEarlierProcessOfThisPid: an owed alert that an earlier
// boot's process of this pid left where this process's next one would go
// is passed by (a new name), and paid by this process's next scan; its
// own, which it still holds, is left to it.
func TestOwedAlertOfAnEarlierProcessOfThisPid(t *testing.T) {
	// Serial: it foretells this process's next owedAlertSeq, which another test's owed alert would take.
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
