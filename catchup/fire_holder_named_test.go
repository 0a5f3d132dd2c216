package catchup

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestDuplicateNamesTheHoldersRecord: a fire finds its slot claimed by a
// twin's run, running when read, which the twin then records skipped
// (exit 75: its own lock skip, it ran nothing). The duplicate's notice said
// "it is running (run N on HOST)" of that skip record (three replicas on
// one PostgreSQL ledger logged it); it names the record as it stands once
// the duplicate is recorded.
func TestDuplicateNamesTheHoldersRecord(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	slot := mustTime(t, "2026-03-01T10:00:00Z")
	twin, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
	if err != nil {
		t.Fatal(err)
	}
	defer twin.close()
	if ok, err := twin.tryLock(); err != nil || !ok {
		t.Fatalf("twin's lock: %v, %v", ok, err)
	}
	run := store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Attempt: 1, StartedAt: f.now,
		Host: f.m.Host, PID: os.Getpid(), BootID: f.m.BootID}
	c, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: run})
	if err != nil || !c.Claimed {
		t.Fatalf("the twin's claim: %+v, %v", c, err)
	}
	ledger := &afterFirstRead{Store: f.st, act: func() { // the twin's lock skip, recorded
		code := exitLocked
		if err := f.st.Finish(context.Background(), c.Run.ID, store.Outcome{Status: store.StatusSkipped,
			ExitCode: &code, EndedAt: f.now}); err != nil {
			t.Error(err)
		}
	}}
	var notices []string
	f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	req := f.request(t)
	req.OnBusy = "skip"
	if _, err := Run(context.Background(), ledger, nil, f.m, req); err != nil {
		t.Fatal(err)
	}
	said := strings.Join(notices, "\n")
	if !strings.Contains(said, "duplicate fire of slot") {
		t.Fatalf("no duplicate notice:\n%s", said)
	}
	if strings.Contains(said, "is running") || !strings.Contains(said, fmt.Sprintf("recorded skipped (run %d on %s, exit 75", c.Run.ID, f.m.Host)) {
		t.Errorf("the notice is\n%s\nwant the holder named as what it is: recorded skipped (run %d on %s, exit 75 ...)", said, c.Run.ID, f.m.Host)
	}
}
