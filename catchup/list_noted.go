package catchup

import (
	"time"

	"github.com/catchup/catchup/store"
)

// notedLatest makes each task's latest run the last of this host's notes of
// its unrecorded fires, when there is one, as the next scan records them
// (after every record, in the notes' order: the latest by id), and its
// LastSlot that note's slot when later. Before, ls and metrics showed the
// run before such a fire until that scan: a fire that ran unrecorded and
// failed read succeeded, and the recipes' alert on a failure stayed silent.
func notedLatest(lines *crontabs, out []TaskStatus, notes *pendingNotes, tolerance time.Duration) {
	if notes == nil || len(notes.fires) == 0 {
		return
	}
	for i := range out {
		ts := &out[i]
		t := ts.Task
		sched, err := lines.readerSchedule(t) // by root, as its task's user
		if err != nil {
			sched = nil // noteSlot: no slot for a note that names none
		}
		known := knownFrom(&t, sched)
		for k, e := range notes.fires {
			if e.Task != t.Name {
				continue
			}
			r := noteRun(e, func(e spoolEntry) time.Time { return noteSlot(sched, known, e, tolerance) })
			r.ID = notedRunBase + int64(k)
			ts.Latest = &r
			if r.Slot.After(ts.LastSlot) {
				ts.LastSlot = r.Slot
			}
		}
	}
}

// notedFailure is when a task's latest run, one of this host's notes of
// unrecorded fires (notedLatest), ended, when it failed, timed out or was
// interrupted and that is later than recorded, the latest recorded
// failure's end: as the next scan leaves catchup_last_failure_timestamp_seconds.
func notedFailure(latest *store.Run, recorded time.Time) time.Time {
	if latest == nil || latest.ID < notedRunBase || !latest.EndedAt.After(recorded) {
		return recorded
	}
	switch latest.Status {
	case store.StatusFailed, store.StatusTimeout, store.StatusInterrupted:
		return latest.EndedAt
	}
	return recorded
}
