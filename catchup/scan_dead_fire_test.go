package catchup

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestScanReplaysADeadFireAtOnce: a slot whose fire came and died (its run
// interrupted, or running with its process gone) is replayed by the next
// scan, however recent: the tolerance spares the slots cron may still
// fire, and cron fired this one. Waiting out the tolerance replayed it
// after the task's later slots (oldest first broken), and long after a
// dead host's lease. A slot younger than the tolerance with no run, or
// with a live one, is still left alone.
func TestScanReplaysADeadFireAtOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status    string
		wantSlots []int // minutes past 10:00 missed, and replayed
	}{
		"running, its process gone": {status: store.StatusRunning, wantSlots: []int{10}},
		"interrupted":               {status: store.StatusInterrupted, wantSlots: []int{10}},
		"succeeded":                 {status: store.StatusSucceeded},
		"failed":                    {status: store.StatusFailed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Schedule = mustSchedule(t, "*/10 * * * *", "UTC")
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			slot := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
			r := store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Status: tc.status,
				Attempt: 1, StartedAt: slot.Add(time.Second), Host: f.m.Host, BootID: f.m.BootID, PID: deadPID}
			if tc.status != store.StatusRunning {
				r.EndedAt = slot.Add(2 * time.Second)
			}
			if _, err := f.st.AddRun(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			f.now = slot.Add(time.Minute) // 10:11: within the tolerance of 10:10
			x, err := Explain(context.Background(), f.st, f.m, ExplainRequest{Task: "job", Slot: slot, MissedRule: scanRequest().MissedRule})
			if err != nil {
				t.Fatal(err)
			}
			if missed := x.State == StateMissed; missed != (len(tc.wantSlots) > 0) {
				t.Errorf("explain at 10:11: %s (%s); want missed exactly when scan replays it", x.State, x.Summary)
			}
			ts := f.scan(t, scanRequest())
			var want []time.Time
			for _, m := range tc.wantSlots {
				want = append(want, time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC))
			}
			if !reflect.DeepEqual(ts.Missed, want) || ts.Replayed != len(want) {
				t.Errorf("scan at 10:11: missed %v, replayed %d; want %v replayed", ts.Missed, ts.Replayed, want)
			}
			f.now = slot.Add(time.Minute + 10*time.Second)
			if again := f.scan(t, scanRequest()); len(again.Missed) != 0 {
				t.Errorf("second scan found %v missed", again.Missed)
			}
		})
	}
}
