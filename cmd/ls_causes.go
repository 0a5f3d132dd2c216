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
// them (catchup.Unreplayable).
func causeSummary(t catchup.TaskStatus) string {
	if t.BadSchedule != "" {
		return "bad schedule"
	}
	if !t.ClockAhead.IsZero() {
		return "clock ahead (" + t.ClockAhead.UTC().Format(time.RFC3339) + ")"
	}
	if catchup.Unreplayable(t.Task) && len(t.Missed) > 0 {
		return countCauses(t.Causes) + "; not replayable: command redacted"
	}
	return countCauses(t.Causes)
}

// countCauses counts causes in the order they first occur: "host-down 2, lock-busy 1".
func countCauses(causes []string) string {
	n := map[string]int{}
	var order []string
	for _, c := range causes {
		if n[c] == 0 {
			order = append(order, c)
		}
		n[c]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = c + " " + strconv.Itoa(n[c])
	}
	return strings.Join(parts, ", ")
}
