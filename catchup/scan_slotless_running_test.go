package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestWatermarkStopsBelowSlotOfRunningManualRun: a run without a slot (a
// --manual fire) that starts within the tolerance after a slot counts for
// that slot, and while it runs, the slot is not missed. But it may yet be
// interrupted (killed, a power cut), which settles nothing: scan must not
// move the watermark past that slot meanwhile, or no later scan would see
// it missed again.
func TestWatermarkStopsBelowSlotOfRunningManualRun(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	// A manual run of the task starts at 11:01 on this host and is alive
	// (it holds the task's lock) while scan looks at 11:30.
	lock, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := lock.tryLock(); err != nil || !ok {
		t.Fatalf("task lock: %v, %v", ok, err)
	}
	manual, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Trigger: store.TriggerManual,
		Status: store.StatusRunning, Attempt: 1, StartedAt: mustTime(t, "2026-03-01T11:01:00Z"),
		Host: f.m.Host, BootID: f.m.BootID, PID: f.m.PID}})
	if err != nil || !manual.Claimed {
		t.Fatalf("manual run: %+v, %v", manual, err)
	}
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Fatalf("scan while the manual run runs: missed %v, want none (it stands for 11:00)", ts.Missed)
	}
	// It dies without an outcome; the next scan finds it gone.
	lock.close()
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	ts := f.scan(t, scanRequest())
	var missed []string
	for _, s := range ts.Missed {
		missed = append(missed, s.Format("15:04"))
	}
	if got := strings.Join(missed, " "); got != "11:00 12:00" || ts.Replayed != 2 {
		t.Errorf("scan after the manual run died: missed %q, replayed %d; want 11:00 12:00, both replayed", got, ts.Replayed)
	}
}
