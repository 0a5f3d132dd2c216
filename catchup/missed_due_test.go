package catchup

import (
	"testing"
	"time"
)

// TestDueBefore pins the end of the window whose slots are missed: the
// tolerance, the daemon's start (FiredAfter: nothing fires a slot before
// it, however young) and the daemon's loop (FiringAfter: it still fires the
// later slots, however old: a replay of one would meet its fire).
func TestDueBefore(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	for name, c := range map[string]struct {
		rule MissedRule
		want time.Time
	}{
		"tolerance":                       {MissedRule{Tolerance: 5 * time.Minute}, at(-5 * time.Minute)},
		"daemon start, younger":           {MissedRule{Tolerance: 5 * time.Minute, FiredAfter: at(-time.Minute)}, at(-time.Minute)},
		"daemon start, older":             {MissedRule{Tolerance: 5 * time.Minute, FiredAfter: at(-8 * time.Minute)}, at(-5 * time.Minute)},
		"loop behind the tolerance":       {MissedRule{Tolerance: time.Minute, FiringAfter: at(-8 * time.Minute)}, at(-8 * time.Minute)},
		"loop ahead of the tolerance":     {MissedRule{Tolerance: time.Minute, FiringAfter: at(-30 * time.Second)}, at(-time.Minute)},
		"long start: the start, not more": {MissedRule{Tolerance: time.Minute, FiredAfter: at(-8 * time.Minute), FiringAfter: at(-8 * time.Minute)}, at(-8 * time.Minute)},
	} {
		if got := dueBefore(Machine{}, c.rule, now); !got.Equal(c.want) {
			t.Errorf("%s: dueBefore = %s, want %s", name, got.Format(time.TimeOnly), c.want.Format(time.TimeOnly))
		}
	}
}
