package catchup

import (
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// counted is every slot the readers count missed, oldest first, with its
// cause in step: the slots of the schedule scan replays or records expired
// (slots), and those owed to an older schedule (offSchedule), which it
// records expired (schedule-changed). ls --missed, metrics, calendar,
// explain, scan --dry-run and scan's own counts and alert all count both,
// so that a scan's missed slots are the ones it replayed, failed, skipped,
// expired or left. New slices: r's are not written to.
func (r missed) counted() ([]time.Time, []string) {
	if len(r.offSchedule) == 0 {
		return r.slots, r.causes
	}
	slots := make([]time.Time, 0, len(r.slots)+len(r.offSchedule))
	causes := make([]string, 0, len(slots))
	i, k := 0, 0
	for i < len(r.slots) || k < len(r.offSchedule) {
		if k == len(r.offSchedule) || i < len(r.slots) && r.slots[i].Before(r.offSchedule[k]) {
			slots, causes = append(slots, r.slots[i]), appendCause(causes, r.causes, i)
			i++
			continue
		}
		slots, causes = append(slots, r.offSchedule[k]), appendCause(causes, r.offCauses, k)
		k++
	}
	return slots, causes
}

// causeOf is the cause of missed slot slot, of slots or offSchedule ("":
// not one of them, or its cause not read). Both are oldest first.
func (r missed) causeOf(slot time.Time) string {
	for _, in := range []struct {
		slots  []time.Time
		causes []string
	}{{r.slots, r.causes}, {r.offSchedule, r.offCauses}} {
		i, found := slices.BinarySearchFunc(in.slots, slot, time.Time.Compare)
		if found && i < len(in.causes) {
			return in.causes[i]
		}
	}
	return ""
}

// causesUpTo is causes' first n, or all of them when fewer.
func causesUpTo(causes []string, n int) []string {
	return causes[:min(n, len(causes))]
}

// appendCause appends from[i] to causes, when the causes were read (a
// rule's result read without causes has none).
func appendCause(causes, from []string, i int) []string {
	if i < len(from) {
		return append(causes, from[i])
	}
	return causes
}

// owedOffSchedule returns, oldest first, the slots owed to an older
// schedule that schedule s does not have and that no record settles
// (missed.offSchedule, owedToOldSchedule). Only such slots are looked up
// in s: most records are of its slots.
func owedOffSchedule(s *schedule.Schedule, records map[int64][]store.Run, rule MissedRule, stale map[int64]bool) []time.Time {
	var out []time.Time
	for k, rs := range records {
		if !owedToOldSchedule(rs, rule, stale) {
			continue
		}
		if slot := time.Unix(k, 0).UTC(); !s.Has(slot) {
			out = append(out, slot)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// owedToOldSchedule reports whether the records of a slot (above the
// watermark) owe it to the schedule it was of, if the task's schedule no
// longer has it: a run of it was interrupted (or is dead, stale: a dry run
// marks nothing), or its paused record given back by resume
// --replay-paused, and no record settles it. Such a slot is missed (every
// reader counts it) until scan records it expired (schedule-changed): no
// scan replays it under the new schedule.
func owedToOldSchedule(records []store.Run, rule MissedRule, stale map[int64]bool) bool {
	owed := false
	for _, r := range records {
		owed = owed || r.Status == store.StatusInterrupted || r.Status == store.StatusRunning && stale[r.ID] ||
			r.Status == store.StatusPaused && r.Reason == store.ReasonReplayPaused
	}
	return owed && slotSettled(records, store.Run{}, false, rule, stale) == notSettled
}
