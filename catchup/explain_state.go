package catchup

import (
	"fmt"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
)

// slotRecords are a slot's records: the runs that name it, by id, and the
// run without a slot that stands for it (slotless, when has).
type slotRecords struct {
	named    []store.Run
	slotless store.Run
	has      bool
	// pruned: the slot is at or before the task's prune floor
	// (store.Task.PrunedThrough): its earlier records may be gone.
	pruned bool
}

// all is every record of the slot, by id: the run without a slot among
// the runs that name it, where it was recorded.
func (sr slotRecords) all() []store.Run {
	if !sr.has {
		return sr.named
	}
	out := append(append([]store.Run(nil), sr.named...), sr.slotless)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// decider is the run that settles the slot by the missed-slot rule
// (slotSettled, as scan, ls, metrics and calendar decide), or nil when the
// slot is not settled.
func (sr slotRecords) decider(rule MissedRule, stale map[int64]bool) *store.Run {
	switch slotSettled(sr.named, sr.slotless, sr.has, rule, stale) {
	case byItsRuns:
		if h, held := claimHolder(sr.named, stale); held {
			return &h // as the claim names it: a later failed record changes nothing
		}
		for i := len(sr.named) - 1; i >= 0; i-- {
			if settles(sr.named[i], rule, stale) {
				return &sr.named[i]
			}
		}
	case bySlotless:
		r := sr.slotless
		return &r
	}
	return nil
}

// settledBefore reports whether the records older than run id had already
// settled the slot by a run of it (or its pause): a run again of a slot that
// was not missed (backfill --only all, a run by hand) gives it no cause. An
// expiry or a policy's skip settles a slot that was missed: it keeps its cause.
func (sr slotRecords) settledBefore(id int64, rule MissedRule, stale map[int64]bool) bool {
	ran := func(r store.Run) bool {
		return r.ID < id && r.Status != store.StatusExpired && r.Status != store.StatusSkipped
	}
	var named []store.Run
	for _, r := range sr.named {
		if ran(r) {
			named = append(named, r)
		}
	}
	return slotSettled(named, sr.slotless, sr.has && ran(sr.slotless), rule, stale) != notSettled
}

// state sets the slot's state, cause, deciding run and summary. A run
// known from a note alone (notes.unrecorded) is no run of the ledger yet:
// none is named.
func (x *Explanation) state(sr slotRecords, stale map[int64]bool, notes *pendingNotes, u uptime, m Machine,
	rule MissedRule) {
	now := m.Now()
	// A slot from before the registration that a run stands for (a
	// backfill of it, a --slot by hand) is settled by it, as any slot is.
	unregistered := x.Slot.Before(x.Task.RegisteredAt.Truncate(time.Second))
	if unregistered && sr.decider(rule, stale) == nil {
		x.State = StateUnregistered
		x.Summary = fmt.Sprintf("before the task's registration (%s): never missed", rfc(x.Task.RegisteredAt))
		return
	}
	records := sr.all()
	if d := sr.decider(rule, stale); d != nil {
		r := *d
		x.Run = d
		// A slot of the current schedule from before it took effect, of
		// which no record came before this run (a backfill of the gap a
		// schedule change left), was no slot of the task then: never
		// missed, as before the registration. An expiry is a record of a
		// miss: the change's own, of the earlier schedule's slot, says so.
		earlier := before(records, r.ID)
		unscheduled := r.Status != store.StatusExpired && beforeSchedule(x.Task, x.Slot, len(earlier) > 0)
		// Nor is a miss known of a slot whose earlier records prune may
		// have deleted (a success among them: it stays done), run again by
		// backfill or by hand: the boots cannot tell. A scan's replay
		// runs only a missed slot.
		forgotten := sr.pruned && len(earlier) == 0 && r.Trigger != store.TriggerReplay
		// The run without a slot that stands for it is cron's fire of it,
		// recorded before the task's schedule was known: no miss either.
		cronsFire := r.Trigger == store.TriggerSchedule || (sr.has && r.ID == sr.slotless.ID)
		// A slot of the task's pause is never missed: the record a scan,
		// forget or prune left of it says the pause settled it, not a miss.
		paused := r.Status == store.StatusPaused
		if !cronsFire && !paused && r.Trigger != store.TriggerRetry && !unregistered && !unscheduled &&
			!forgotten && !sr.settledBefore(r.ID, rule, stale) {
			x.Cause = causeOf(x.Slot, earlier, stale, u)
		}
		switch {
		case notes.unrecorded(r):
			x.State, x.Summary = StateUnrecorded, unrecordedSummary(r)
			if r.ID >= notedRunBase {
				x.Run = nil
			}
		case r.Status == store.StatusRunning:
			x.State, x.Summary = StateRunning, fmt.Sprintf("running (run %d)", r.ID)
			if WaitsRetryDelay(r, now) {
				x.Summary = fmt.Sprintf("running (run %d, %s)", r.ID, RetryDelayWait)
			}
			return
		case r.Status == store.StatusExpired:
			x.State, x.Summary = StateExpired, fmt.Sprintf("expired by run %d (%s)", r.ID, r.Error)
		default:
			x.State, x.Summary = StateSettled, fmt.Sprintf("settled by run %d (%s)", r.ID, r.Status)
		}
		if (r.Status == store.StatusFailed || r.Status == store.StatusTimeout) && x.retryReplays(sr, stale, notes, u, m, rule) {
			x.Summary += "; scan --retry-failed would replay it"
		}
		x.Summary += failedSince(sr.named, r)
		if x.Cause != "" {
			x.Summary += fmt.Sprintf("; it had been missed (%s: %s)", x.Cause, CauseWords(x.Cause))
		}
		return
	}
	if beforeSchedule(x.Task, x.Slot, len(records) > 0) {
		x.State = StateUnscheduled
		// Not "never missed": the slot may have been one of the earlier
		// schedule's too, missed then (the fire that changed it said so),
		// and the ledger keeps only the current schedule.
		// ScheduleSince is the watermark the change set (for a fire, just
		// below its own slot), not when the change came: the ledger keeps
		// no time of the change itself.
		x.Summary = fmt.Sprintf("before the task's schedule took effect: its current schedule or zone counts only the slots after %s "+
			"(set when it last changed): not counted under it (a schedule change records the slots the earlier one missed expired, "+
			"with the reason)", rfc(x.Task.ScheduleSince))
		return
	}
	if !x.Task.SettledThrough.IsZero() && !x.Slot.After(x.Task.SettledThrough) {
		x.State = StatePassed
		x.Summary = fmt.Sprintf("passed by the task's watermark (%s): catchup no longer counts it", rfc(x.Task.SettledThrough))
		if len(records) > 0 {
			// A record of its miss (a lock skip, an interruption) that no
			// replay followed: a schedule change passed it by.
			if c := causeOf(x.Slot, records, stale, uptime{}); c != CauseUnknown {
				x.Cause = c
				x.Summary += fmt.Sprintf("; it had been missed (%s: %s)", c, CauseWords(c))
			}
		}
		return
	}
	// As in the missed-slot rule: cron may still fire a slot younger than
	// the tolerance, unless it lies before this boot, or its fire came and
	// died (diedFiring).
	booted := !m.BootTime.IsZero() && m.BootTime.Before(now) && x.Slot.Before(m.BootTime)
	if now.Sub(x.Slot) < rule.Tolerance && !booted && !diedFiring(records, stale) {
		x.State, x.Summary = StateDue, fmt.Sprintf("due: cron may still fire it (within the tolerance of %s)", FormatDuration(rule.Tolerance))
		if c := skippedFireCause(records); c != "" {
			// Its fire came: "cron may still fire it" would say it did not.
			x.Summary = fmt.Sprintf("due: %s, and was skipped; the first scan after the tolerance of %s replays it, unless another fire of it comes first",
				CauseWords(c), FormatDuration(rule.Tolerance))
		}
		return
	}
	switch {
	case !x.Task.RetiredAt.IsZero():
		x.State = StateRetired
		x.Summary = fmt.Sprintf("the task was retired (%s): catchup no longer counts its slots", rfc(x.Task.RetiredAt))
		return
	case Paused(x.Task, x.Slot):
		x.State = StatePaused
		x.Summary = fmt.Sprintf("in the task's pause (%s): never missed; the next scan records it paused", pauseSpan(x.Task))
		return
	}
	x.State, x.Cause = StateMissed, slotCause(x.Slot, sr, stale, u)
	x.Summary = fmt.Sprintf("missed (%s: %s)", x.Cause, CauseWords(x.Cause))
}

// before returns the records with an id below id.
func before(records []store.Run, id int64) []store.Run {
	var out []store.Run
	for _, r := range records {
		if r.ID < id {
			out = append(out, r)
		}
	}
	return out
}

// retryReplays reports whether scan --retry-failed counts the slot missed
// (or due): not one before the task's registration, one the watermark
// passed, or one an expiry settles, which scan --retry-failed passes by.
func (x *Explanation) retryReplays(sr slotRecords, stale map[int64]bool, notes *pendingNotes, u uptime, m Machine, rule MissedRule) bool {
	if rule.RetryFailed {
		return false
	}
	rule.RetryFailed = true
	y := *x
	y.state(sr, stale, notes, u, m, rule)
	return y.State == StateMissed || y.State == StateDue
}
