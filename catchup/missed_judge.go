package catchup

import (
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// judged is what missedSlots found for one task before the causes of its
// missed slots, which need the boots of the hosts its records name.
type judged struct {
	missed
	task  string
	fires map[string]time.Time // each host's first fire among the runs read, notes too (firesOf)
	// records are the records of the missed slots that have any (most
	// have none), by their index in slots.
	records map[int]slotRecords
	// offRecords are the records of the offSchedule slots, in step.
	offRecords [][]store.Run
}

// judgeSlots is the missed-slot rule over the runs missedSlots read:
// runs are SlotRuns(t, from, now, rule.Tolerance) (none when now is not
// after from: nothing is looked at, and notes are not either). It reads
// nothing.
func judgeSlots(m Machine, t store.Task, s *schedule.Schedule, rule MissedRule, stale map[int64]bool,
	notes *pendingNotes, from, now time.Time, runs []store.Run) judged {
	upTo := dueBefore(m, rule, now)
	res := missed{win: window{after: from, upTo: upTo}}
	if !now.After(from) {
		return judged{missed: res}
	}
	runs = notes.runs(runs, t.Name, s, knownFrom(&t, s), from, now, rule.Tolerance)
	latest := map[int64]int64{}        // slot unix -> id of its latest run
	lastFailed := map[int64]bool{}     // slot unix -> its latest run failed or timed out
	records := map[int64][]store.Run{} // slot unix -> its runs, by id
	fires := firesOf(runs)
	var slotless []store.Run
	for _, r := range runs {
		if r.Slot.IsZero() {
			if standsForASlot(r) {
				slotless = append(slotless, r)
			}
			continue
		}
		k := r.Slot.Unix()
		records[k] = append(records[k], r)
		if r.Status == store.StatusRunning && (res.win.firstRunning.IsZero() || r.Slot.Before(res.win.firstRunning)) {
			res.win.firstRunning = r.Slot
		}
		if r.Status == store.StatusRunning && !stale[r.ID] && (res.win.firstHeld.IsZero() || r.Slot.Before(res.win.firstHeld)) {
			res.win.firstHeld, res.win.firstHeldBy = r.Slot, r
		}
		if r.ID > latest[k] {
			latest[k] = r.ID
			lastFailed[k] = failedAttempt(r)
		}
	}
	// A failed slot older than the horizon is dealt with (advanceWatermark):
	// the first failed slot is the first one younger, else one failure long
	// ago let the watermark, and prune, pass every failure after it.
	horizon := now.Add(-max(catchupWindow(t, rule), watermarkHorizon)).Unix()
	for k, f := range lastFailed {
		if _, held := claimHolder(records[k], stale); held {
			continue // succeeded: no scan retries it (a later failed record is history)
		}
		if f && k > horizon && (res.win.firstFailed.IsZero() || k < res.win.firstFailed.Unix()) {
			res.win.firstFailed = time.Unix(k, 0).UTC()
		}
	}
	edge := now.Add(-catchupWindow(t, rule)) // slots before it expire
	bySlot := slotlessBySlot(s, slotless, rule.Tolerance)
	s.Slots(from, now, func(slot time.Time) bool {
		if slot.After(upTo) && !diedFiring(records[slot.Unix()], stale) {
			return true // still due: cron may yet fire it
		}
		r, ok := bySlot[slot.Unix()]
		if beforeSchedule(t, slot, ok || len(records[slot.Unix()]) > 0) {
			return true
		}
		switch slotSettled(records[slot.Unix()], r, ok, rule, stale) {
		case byItsRuns:
			return true
		case bySlotless:
			if r.Status == store.StatusRunning && (res.win.firstRunning.IsZero() || slot.Before(res.win.firstRunning)) {
				res.win.firstRunning = slot // it may yet be interrupted, settling nothing
			}
			return true
		}
		res.slots = append(res.slots, slot)
		if slot.Before(edge) {
			res.expiring++
		}
		return true
	})
	res.offSchedule = owedOffSchedule(s, records, rule, stale)
	j := judged{missed: res, task: t.Name, fires: fires, records: map[int]slotRecords{}}
	for _, slot := range res.offSchedule {
		j.offRecords = append(j.offRecords, records[slot.Unix()])
	}
	for i, slot := range res.slots {
		if r, ok := bySlot[slot.Unix()]; ok || len(records[slot.Unix()]) > 0 {
			j.records[i] = slotRecords{named: records[slot.Unix()], slotless: r, has: ok}
		}
	}
	return j
}

// addCauses gives each missed slot, and each slot owed to an older
// schedule, its cause (slotCause), from u, the task's uptime (a slot
// without records has the zero slotRecords); the records it kept for
// them are let go.
func (j *judged) addCauses(stale map[int64]bool, u uptime) {
	for i, slot := range j.slots {
		j.causes = append(j.causes, slotCause(slot, j.records[i], stale, u))
	}
	for i, slot := range j.offSchedule {
		j.offCauses = append(j.offCauses, slotCause(slot, slotRecords{named: j.offRecords[i]}, stale, u))
	}
	j.records, j.offRecords = nil, nil
}

// hasMissed reports whether the rule found any slot the readers count
// missed (counted): one its causes are needed for.
func (r missed) hasMissed() bool {
	return len(r.slots) > 0 || len(r.offSchedule) > 0
}
