package catchup

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestAheadOf: a slot later than now puts the ledger ahead of the clock; a
// watermark or registration does only when more than clockSlack ahead (a
// command run in the second of the fire that registered the task is not).
func TestAheadOf(t *testing.T) {
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
