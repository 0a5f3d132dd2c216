package catchup

import (
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// errNotASlot says that shown (t, as the error shows it) is not a slot of
// sched, and names the slots around t in the schedule's zone: for a wall
// time a DST change skipped or repeated, the slot it meant is among them.
func errNotASlot(shown string, t time.Time, sched *schedule.Schedule) error {
	var near []string
	if p, ok := sched.Prev(t); ok && p.After(time.Time{}) { // the zero time is no slot (cmd's parseSlot)
		near = append(near, schedule.RFC3339(p, sched.Location()))
	}
	if n, ok := sched.Next(t); ok {
		near = append(near, schedule.RFC3339(n, sched.Location()))
	}
	hint := "catchup backfill --dry-run --only all lists a range's slots"
	switch len(near) {
	case 2:
		hint = fmt.Sprintf("the nearest slots are %s and %s (%s)", near[0], near[1], hint)
	case 1:
		hint = fmt.Sprintf("the nearest slot is %s (%s)", near[0], hint)
	}
	return fmt.Errorf("%s is not a slot of %q in %s; %s", shown, sched.Expr(), sched.Location(), hint)
}
