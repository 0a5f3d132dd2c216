package daemon

import (
	"testing"
	"time"
)

// TestUntilDue pins when a task's loop fires: only once the clock reads the
// slot (a timer that woke early must not fire, or the lifecycle would claim
// the slot before), and never after a sleep longer than maxSleep.
func TestUntilDue(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		now  time.Time
		rate float64
		wait time.Duration
		due  bool
	}{
		"at the slot":               {slot, 1, 0, true},
		"after the slot":            {slot.Add(time.Second), 1, 0, true},
		"a millisecond early":       {slot.Add(-time.Millisecond), 1, time.Millisecond, false},
		"long before: capped":       {slot.Add(-time.Hour), 1, maxSleep, false},
		"clock hook: 60x real rate": {slot.Add(-time.Minute), 60, time.Second, false},
	} {
		t.Run(name, func(t *testing.T) {
			wait, due := untilDue(tc.now, slot, tc.rate)
			if wait != tc.wait || due != tc.due {
				t.Errorf("untilDue(slot%+v, rate %v) = %v, %v; want %v, %v", tc.now.Sub(slot), tc.rate, wait, due, tc.wait, tc.due)
			}
		})
	}
}
