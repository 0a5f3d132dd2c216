package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestAheadOf: a slot, a watermark or a registration puts the ledger ahead
// of the clock only when more than clockSlack later than now (a command run
// in the second of the fire that registered the task is not; a slot another
// host, seconds ahead, claimed is not).
func TestAheadOf(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		task   store.Task
		latest time.Time
		want   time.Time
	}{
		"nothing ahead": {task: store.Task{RegisteredAt: now.Add(-time.Hour)}, latest: now.Add(-time.Hour)},
		// Another host of a fleet, seconds ahead, claimed the next slot.
		"a slot a few seconds ahead (skew)": {latest: now.Add(4 * time.Second)},
		"a slot two minutes ahead":          {latest: now.Add(2 * time.Minute), want: now.Add(2 * time.Minute)},
		"a registration in the same second": {task: store.Task{RegisteredAt: now.Add(5 * time.Millisecond)}},
		"a registration years ahead":        {task: store.Task{RegisteredAt: now.AddDate(5, 0, 0)}, want: now.AddDate(5, 0, 0)},
		"a watermark ahead, the latest wins": {task: store.Task{SettledThrough: now.AddDate(4, 0, 0)}, latest: now.AddDate(4, 0, 1),
			want: now.AddDate(4, 0, 1)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := aheadOf(tc.task, tc.latest, now); !got.Equal(tc.want) {
				t.Errorf("aheadOf = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestResetClockKeepsASlotSecondsAhead: reset-clock, advised for a
// watermark a day ahead, frees what the ledger holds later than now, but
// not a slot another host of the fleet claimed a few seconds early (its
// clock a little ahead): detached, that slot would be missed and run again.
func TestResetClockKeepsASlotSecondsAhead(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	ctx := context.Background()
	slot := mustTime(t, "2026-03-01T11:00:00Z")
	if err := f.st.SetSettled(ctx, "job", slot.AddDate(0, 0, 1)); err != nil { // a forward glitch
		t.Fatal(err)
	}
	c, err := f.st.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule,
		Attempt: 1, StartedAt: slot.Add(-4 * time.Second), Host: "ahead", PID: 1}})
	if err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	f.m.Now = func() time.Time { return slot.Add(-4 * time.Second) }
	res, err := ResetClock(ctx, f.st, f.m, "job", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Detached) != 0 {
		t.Errorf("detached %+v; want the slot 4s ahead kept", res.Detached)
	}
	if !res.Settled.Equal(slot.AddDate(0, 0, 1)) {
		t.Errorf("watermark reset from %v; want the day-ahead one reset", res.Settled)
	}
	r, err := f.st.Run(ctx, c.Run.ID)
	if err != nil || !r.Slot.Equal(slot) {
		t.Errorf("run %d: slot %v, %v; want it still standing for %v", c.Run.ID, r.Slot, err, slot)
	}
}
