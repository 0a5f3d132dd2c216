package catchup

import (
	"iter"
	"time"
)

// expiredLog is the part of a task's scan report that tells of its
// expiries: each slot recorded expired (in a dry run, that would be), or
// found recorded expired meanwhile (skipped), in the order recorded. A gap
// of a year of an every-minute task is half a million of them: as
// SlotActions (a time, strings and pointers, about 240 bytes each) they
// were most of such a scan's memory; here a slot takes 24 bytes, its
// words (action, reason, cause) and zone kept once per log.
type expiredLog struct {
	entries []expiredEntry
	words   []string // the actions, reasons and causes, each once
	zones   []*time.Location
	at      map[string]uint16 // words' index
}

// expiredEntry is one slot of an expiredLog.
type expiredEntry struct {
	slot                  int64  // Unix seconds
	runID                 int64  // the expired record's (0: none, a dry run's or one recorded meanwhile)
	action, reason, cause uint16 // in the log's words
	zone                  uint16 // the slot's, in the log's zones
}

// add appends a's slot, action, run id, reason and cause: the only fields
// an expiry's action has.
func (l *expiredLog) add(a SlotAction) {
	l.entries = append(l.entries, expiredEntry{slot: a.Slot.Unix(), runID: a.RunID,
		action: l.word(a.Action), reason: l.word(a.Reason), cause: l.word(a.Cause), zone: l.zone(a.Slot.Location())})
}

// grow makes room for n more entries.
func (l *expiredLog) grow(n int) {
	if cap(l.entries)-len(l.entries) < n {
		l.entries = append(make([]expiredEntry, 0, len(l.entries)+n), l.entries...)
	}
}

// word is s's index in the log's words, added if new.
func (l *expiredLog) word(s string) uint16 {
	if n := len(l.words); n > 0 && l.words[n-1] == s {
		return uint16(n - 1)
	}
	if i, ok := l.at[s]; ok {
		return i
	}
	if l.at == nil {
		l.at = map[string]uint16{}
	}
	i := uint16(len(l.words)) // a handful: a few reasons and causes
	l.words, l.at[s] = append(l.words, s), i
	return i
}

// zone is loc's index in the log's zones, added if new.
func (l *expiredLog) zone(loc *time.Location) uint16 {
	for i, z := range l.zones {
		if z == loc {
			return uint16(i)
		}
	}
	l.zones = append(l.zones, loc)
	return uint16(len(l.zones) - 1)
}

// action is the log's entry e as a SlotAction.
func (l *expiredLog) action(e expiredEntry) SlotAction {
	return SlotAction{Slot: time.Unix(e.slot, 0).In(l.zones[e.zone]), Action: l.words[e.action], RunID: e.runID,
		Reason: l.words[e.reason], Cause: l.words[e.cause]}
}

// SlotActions yields what scan did (or would do) with each of the task's
// missed slots, in the order it did it: its expiries first (kept apart,
// compactly), then Actions. A report of a long gap yields half a million:
// each is made as it is yielded, none is held.
func (ts *TaskScan) SlotActions() iter.Seq[SlotAction] {
	return func(yield func(SlotAction) bool) {
		for _, e := range ts.expiries.entries {
			if !yield(ts.expiries.action(e)) {
				return
			}
		}
		for _, a := range ts.Actions {
			if !yield(a) {
				return
			}
		}
	}
}
