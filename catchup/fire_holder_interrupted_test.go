package catchup

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestDuplicateOfAnInterruptedHolderSaysItIsReplayed: a fire finds its slot
// claimed by a replica's run, running when read, which a stop then cuts
// short (recorded interrupted) before the duplicate is recorded. The notice
// said "it already interrupted (run N)", as if the slot were settled; an
// interrupted run settles nothing: the slot is missed again, and a scan (a
// daemon's rescan) replays it (three replicas on one PostgreSQL ledger, one
// of them stopped, logged it).
func TestDuplicateOfAnInterruptedHolderSaysItIsReplayed(t *testing.T) {
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
	ledger := &afterFirstRead{Store: f.st, act: func() { // the twin's job, cut by its daemon's stop
		code := 143
		if err := f.st.Finish(context.Background(), c.Run.ID, store.Outcome{Status: store.StatusInterrupted,
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
	want := fmt.Sprintf("it was claimed by run %d on %s, since interrupted: the next scan replays the slot", c.Run.ID, f.m.Host)
	if strings.Contains(said, "already interrupted") || !strings.Contains(said, want) {
		t.Errorf("the notice is\n%s\nwant the holder named as what it is: %s", said, want)
	}
}
