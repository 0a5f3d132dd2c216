package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRecordLeftBehindRecordsTheRemovedLinesPause: a daemon line removed
// while its task was paused (RecordLeftBehind with no new schedule) first
// records the slots of the pause that nothing recorded as paused, as a
// scan would have, before the task's missed ones are recorded expired:
// else they were left with no record at all, in no reader once the task
// was registered again.
func TestRecordLeftBehindRecordsTheRemovedLinesPause(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T02:00:05Z")
	req := f.request(t)
	req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T12:00:00Z")
	if _, err := Pause(context.Background(), f.st, f.m, PauseRequest{Task: "job"}); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-04T12:00:00Z")
	old, err := f.st.Task(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Forget(context.Background(), "job", f.now, false); err != nil {
		t.Fatal(err)
	}
	log, _, err := RecordLeftBehind(context.Background(), f.st, f.m, LeftBehind{Old: old, Path: "/etc/crontab", Cut: f.now})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.st.SlotRuns(context.Background(), "job", mustTime(t, "2026-03-02T00:00:00Z"), f.now, 0)
	if err != nil {
		t.Fatal(err)
	}
	var paused []string
	for _, r := range runs {
		if r.Status == store.StatusPaused {
			paused = append(paused, r.Slot.Format(time.RFC3339))
		}
	}
	if len(paused) != 3 {
		t.Errorf("paused records %q, want the pause's 3 slots (03-02 to 03-04); log %q", paused, log)
	}
}
