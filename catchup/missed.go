package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// MissedRule holds the knobs of the missed-slot rule, shared by scan and ls.
type MissedRule struct {
	MaxAge      time.Duration // no slot older than this is missed
	Tolerance   time.Duration // a slot younger than this may still be fired by cron
	RetryFailed bool          // a slot whose latest attempt failed or timed out is missed too
}

// missedSlots applies the rule to one task. A slot is missed when it lies
// after the task's registration and within MaxAge; it is older than the
// tolerance, or older than this boot (cron can no longer fire it); and no run
// of it reached an outcome. stale holds running records known to be dead.
//
// Slots at or before the task's watermark (SettledThrough, which scan
// advances past the slots it found settled) are not looked at again, so the
// cost is one indexed range query over the slots since the last scan: it
// grows with the number of tasks and of recent or missed slots, not with the
// length of the history. The watermark never passes a recent failed slot, so
// RetryFailed finds every failure it may retry above it.
//
// It also returns the window it looked at.
func missedSlots(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule,
	rule MissedRule, stale map[int64]bool) ([]time.Time, window, error) {
	now := m.Now()
	from := t.RegisteredAt
	if oldest := now.Add(-rule.MaxAge); from.Before(oldest) {
		from = oldest
	}
	// Slots sit at second 0: one second earlier makes the registration
	// instant itself inclusive (a task registers as of its first slot).
	from = from.Add(-time.Second)
	if t.SettledThrough.After(from) {
		from = t.SettledThrough
	}
	upTo := now.Add(-rule.Tolerance)
	if !m.BootTime.IsZero() && m.BootTime.Before(now) && m.BootTime.After(upTo) {
		upTo = m.BootTime.Add(-time.Second)
	}
	w := window{after: from, upTo: upTo}
	if !upTo.After(from) {
		return nil, w, nil
	}
	runs, err := st.SlotRuns(ctx, t.Name, from, upTo, rule.Tolerance)
	if err != nil {
		return nil, w, err
	}
	settled := map[int64]bool{}    // slot unix -> settled, from runs that name their slot
	latest := map[int64]int64{}    // slot unix -> id of its latest run
	lastFailed := map[int64]bool{} // slot unix -> its latest run failed or timed out
	var slotless []store.Run
	for _, r := range runs {
		if r.Slot.IsZero() {
			slotless = append(slotless, r)
			continue
		}
		k := r.Slot.Unix()
		if settles(r, rule, stale) {
			settled[k] = true
		}
		if r.ID > latest[k] {
			latest[k] = r.ID
			failedLast := r.Status == store.StatusFailed || r.Status == store.StatusTimeout
			if rule.RetryFailed && failedLast {
				settled[k] = false
			}
			lastFailed[k] = failedLast
		}
	}
	for k, f := range lastFailed {
		if f && (w.firstFailed.IsZero() || k < w.firstFailed.Unix()) {
			w.firstFailed = time.Unix(k, 0).UTC()
		}
	}
	var missed []time.Time
	next := 0 // slotless runs are sorted by start; each counts for at most one slot
	s.Slots(from, upTo, func(slot time.Time) bool {
		if settled[slot.Unix()] {
			return true
		}
		for next < len(slotless) && slotless[next].StartedAt.Before(slot) {
			next++
		}
		if next < len(slotless) && !slotless[next].StartedAt.After(slot.Add(rule.Tolerance)) {
			r := slotless[next]
			next++
			if settles(r, rule, stale) {
				return true
			}
		}
		missed = append(missed, slot)
		return true
	})
	return missed, w, nil
}

// window is the range of slots missedSlots looked at, (after, upTo], and the
// earliest slot in it whose latest attempt failed or timed out.
type window struct{ after, upTo, firstFailed time.Time }

// settles reports whether run r gives its slot an outcome.
func settles(r store.Run, rule MissedRule, stale map[int64]bool) bool {
	switch r.Status {
	case store.StatusSucceeded:
		return true
	case store.StatusFailed, store.StatusTimeout:
		return !rule.RetryFailed
	case store.StatusRunning:
		return !stale[r.ID]
	case store.StatusSkipped:
		// A skip because the task was running (here or on another host)
		// exits 75 and leaves its slot missed; a skip by policy settles it.
		return r.ExitCode == nil || *r.ExitCode != exitLocked
	default: // interrupted
		return false
	}
}
