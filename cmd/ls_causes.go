package cmd

import (
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
)

// causeSummary says why a task's slots were missed, cause by cause in the
// order they first occurred: "host-down 2, not-fired 1"; or that the
// ledger holds the task ahead of the clock; and that no scan can replay
// them (catchup.Unreplayable), or that none starts while its working
// directory is refused (refused: TaskStatus.StartRefused), or that the
// next scan records them expired, the task's crontab line edited or
// removed (TaskStatus.Left).
func causeSummary(t catchup.TaskStatus, refused error) string {
	if t.BadSchedule != "" {
		return "bad schedule"
	}
	if !t.ClockAhead.IsZero() {
		return "clock ahead (" + t.ClockAhead.UTC().Format(time.RFC3339) + ")"
	}
	if catchup.Unreplayable(t.Task) && len(t.Missed) > 0 {
		return countCauses(t.Causes) + "; not replayable: command redacted"
	}
	if refused != nil && len(t.Missed) > 0 {
		return countCauses(t.Causes) + "; not replayed: working directory refused"
	}
	if t.Left != nil && len(t.Missed) > 0 {
		return countCauses(t.Causes) + "; expiring: " + t.Left.What
	}
	return countCauses(t.Causes)
}

// countCauses counts causes in the order they first occur: "host-down 2, lock-busy 1".
func countCauses(causes []string) string {
	var t causeTally
	for _, c := range causes {
		t.add(c)
	}
	return t.String()
}

// causeTally counts causes in the order they first occur; its size does not
// grow with the count (a calendar's every-minute task missed for days).
type causeTally []causeCount

type causeCount struct {
	cause string
	n     int
}

func (t *causeTally) add(cause string) {
	for i := range *t {
		if (*t)[i].cause == cause {
			(*t)[i].n++
			return
		}
	}
	*t = append(*t, causeCount{cause: cause, n: 1})
}

// String is the tally as ls --missed's CAUSE says it: "host-down 2, lock-busy 1".
func (t causeTally) String() string {
	parts := make([]string, len(t))
	for i, c := range t {
		parts[i] = c.cause + " " + strconv.Itoa(c.n)
	}
	return strings.Join(parts, ", ")
}
