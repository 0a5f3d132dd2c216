package catchup

import (
	"fmt"
	"strconv"
)

// sayRanMeanwhile says once for the task which of its replays found their
// slot succeeded since the scan read it (SlotAction.ranMeanwhile): another
// scan's replay, or a fire, ran it (two scans started together, the boot
// unit's and the timer's). Nothing is wrong and nothing ran twice; a line
// per slot, with run's --force, said more than that. A notice, as that
// line was, not a warning: a slot settled meanwhile needs no one's care.
func (ts *TaskScan) sayRanMeanwhile(m Machine, task string) {
	n := 0
	var first, last int64
	for _, a := range ts.Actions {
		if !a.ranMeanwhile {
			continue
		}
		n++
		if first == 0 || a.RunID < first {
			first = a.RunID
		}
		last = max(last, a.RunID)
	}
	if n == 0 {
		return
	}
	runs := "run " + strconv.FormatInt(first, 10)
	if last != first {
		runs = fmt.Sprintf("runs %d-%d", first, last)
	}
	m.notice("task %s: %d missed %s ran meanwhile (%s): another scan or a fire ran %s since this scan read the task; not replayed again",
		task, n, plural(n, "slot", "slots"), runs, plural(n, "it", "them"))
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
