package catchup

import (
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// slotlessBySlot maps each slot to the run without a slot that stands for
// it (runs sorted by start, as SlotRuns returns them): a run stands for the
// latest slot at or before its start, if it started within the tolerance
// of that slot; a slot has at most one, the first to start. Matched to the
// oldest slot still open instead, a schedule denser than the tolerance
// had each fire count for the slot before its own: the slot without a
// fire looked done, and a later one, done, looked missed.
func slotlessBySlot(s *schedule.Schedule, runs []store.Run, tolerance time.Duration) map[int64]store.Run {
	out := make(map[int64]store.Run, len(runs))
	for _, r := range runs {
		p, ok := slotAtStart(s, r.StartedAt, tolerance)
		if !ok {
			continue
		}
		if _, taken := out[p.Unix()]; !taken {
			out[p.Unix()] = r
		}
	}
	return out
}

// slotAtStart is the slot a fire that started at start, without a slot,
// stands for: the slot it came early for (earlySlot), else the latest at
// or before it, if within tolerance of it.
func slotAtStart(s *schedule.Schedule, start time.Time, tolerance time.Duration) (time.Time, bool) {
	if next, ok := earlySlot(s, start); ok {
		return next, true
	}
	p, ok := s.Prev(start)
	if !ok || start.Sub(p) > tolerance {
		return time.Time{}, false
	}
	return p, true
}

// earlySlot is the slot a fire at t came early for, as a fire that reads
// its schedule takes it (lifecycle.earlyFor): the next slot, when it is at
// most earlyFire ahead and t's minute does not match the expression (cron
// fired it, this clock lags). Matched to the slot before, such a fire left
// its own slot missed, and scan ran it a second time.
func earlySlot(s *schedule.Schedule, t time.Time) (time.Time, bool) {
	next, ok := s.Next(t)
	if !ok || next.Sub(t) > earlyFire || s.Matches(t) {
		return time.Time{}, false
	}
	return next, true
}
