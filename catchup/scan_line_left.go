package catchup

// A scan's report counts the slots a crontab line edited or removed since
// its task was registered left behind, which the scan records expired
// (schedule-changed, retired), among the task's missed slots and in
// expired: what ls --missed counted before it (LineLeft).

import (
	"cmp"
	"time"
)

// countLeft counts in ts, task ts.Task's part of a scan, the slots its
// line's registration left behind and recorded expired (or, in a dry run,
// would): left is their report (leftByChange.report; nil: none). They are
// among its missed slots, oldest first with the rest, and its expiries,
// before the rest (the registration recorded them first). The scan's own
// alert of the task ran before (the line's registration alerted them).
func (ts *TaskScan) countLeft(left *TaskScan) {
	if left == nil || len(left.expiries.entries) == 0 {
		return
	}
	var slots []time.Time
	var causes []string
	for a := range left.SlotActions() {
		slots, causes = append(slots, a.Slot), append(causes, a.Cause)
	}
	ts.Missed, ts.Causes = missed{slots: ts.Missed, causes: ts.Causes, offSchedule: slots, offCauses: causes}.counted()
	ts.Expired, ts.Skipped = ts.Expired+left.Expired, ts.Skipped+left.Skipped
	var log expiredLog
	log.grow(len(left.expiries.entries) + len(ts.expiries.entries))
	for a := range left.SlotActions() {
		log.add(a)
	}
	for _, e := range ts.expiries.entries {
		log.add(ts.expiries.action(e))
	}
	ts.expiries = log
}

// retiredScan is the part of a scan's report of task, retired by it
// because its line is gone (retireGone), whose missed slots it recorded
// expired (or, dry, would): left is their report (nil: none, and no part).
// policy is the scan's --replay ("": the task's own).
func retiredScan(task, policy, own string, left *TaskScan) (TaskScan, bool) {
	if left == nil || len(left.expiries.entries) == 0 {
		return TaskScan{}, false
	}
	ts := TaskScan{Task: task, Policy: cmp.Or(policy, own, "all")}
	ts.countLeft(left)
	return ts, true
}

// retiredPart is a retired task's part of a scan's report (retiredScan),
// and where it goes: before the at-th task scanned.
type retiredPart struct {
	at int
	ts TaskScan
}

// withRetired is the parts of the tasks scanned with those of the tasks
// retired among them, in the order the scan read them (a stopped scan's,
// whose parts may be fewer: those left over at the end).
func withRetired(scanned []TaskScan, retired []retiredPart) []TaskScan {
	if len(retired) == 0 {
		return scanned
	}
	out := make([]TaskScan, 0, len(scanned)+len(retired))
	k := 0
	for i, ts := range scanned {
		for ; k < len(retired) && retired[k].at <= i; k++ {
			out = append(out, retired[k].ts)
		}
		out = append(out, ts)
	}
	for ; k < len(retired); k++ {
		out = append(out, retired[k].ts)
	}
	return out
}
