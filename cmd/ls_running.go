package cmd

import (
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

type runningJSON struct {
	ID          int64   `json:"id"`
	Task        string  `json:"task"`
	Slot        *string `json:"slot"`
	Host        string  `json:"host"`
	PID         int     `json:"pid"`
	StartedAt   *string `json:"started_at"`
	RunningForS int64   `json:"running_for_s"`
	ClockAhead  *string `json:"clock_ahead"`
	// Waiting: a retry waiting out its delay ("retry-delay"), as show and
	// history say it: its command has not started, running_for_s is 0
	// (catchup.RunningRun.Waiting).
	Waiting string `json:"waiting,omitempty"`
}

// runLsRunning is `ls --running [--stuck DUR]`: the runs in progress and
// how long they have run; with --stuck, exit 1 when one ran longer.
func runLsRunning(c *cobra.Command, g *globals, output string, stuck time.Duration) error {
	st, m, err := openReadingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	running, err := catchup.Running(c.Context(), st, m)
	if err != nil {
		return failure(err)
	}
	// A run's times in its task's zone, as ls and history show them.
	runs := make([]store.Run, 0, len(running))
	for _, r := range running {
		runs = append(runs, r.Run)
	}
	zones, err := catchup.RunZones(c.Context(), st, m, runs)
	if err != nil {
		return failure(err)
	}
	var stuckRuns []catchup.RunningRun
	rows := []runningJSON{}
	var table [][]string
	for _, r := range running {
		loc := runZone(zones, r.Run.Task)
		if stuck > 0 && r.For > stuck {
			stuckRuns = append(stuckRuns, r)
		}
		row := runningJSON{ID: r.Run.ID, Task: r.Run.Task, Slot: jsonTime(r.Run.Slot), Host: r.Run.Host,
			PID: r.Run.PID, StartedAt: jsonTime(r.Run.StartedAt), RunningForS: runningForS(r),
			ClockAhead: jsonTime(r.ClockAhead)}
		if r.Waiting {
			row.Waiting = "retry-delay"
		}
		rows = append(rows, row)
		table = append(table, []string{strconv.FormatInt(r.Run.ID, 10), r.Run.Task, tableTime(r.Run.Slot, loc),
			r.Run.Host, strconv.Itoa(r.Run.PID), tableTime(r.Run.StartedAt, loc), runningForText(r)})
		if r.Warning != "" {
			m.Notice("warning: %s", r.Warning)
		}
	}
	out := c.OutOrStdout()
	if output == "json" {
		err = renderJSON(out, rows)
	} else {
		// The default columns fit 80; wide adds STARTED.
		header := []string{"ID", "TASK", "SLOT", "HOST", "PID", "STARTED", "RUNNING FOR"}
		keep := []bool{true, true, true, true, true, output == "wide", true}
		header, table = pickColumns(header, table, keep)
		err = renderTable(out, header, table)
	}
	if err != nil {
		return failure(err)
	}
	// One line per stuck run, naming it: a probe's log (-o json shows no
	// table) must say which job to look at.
	for _, r := range stuckRuns {
		m.Notice("run %d of task %s on host %s has been running for %s, longer than %s",
			r.Run.ID, r.Run.Task, r.Run.Host, runningFor(r), catchup.FormatDuration(stuck))
	}
	if len(stuckRuns) > 0 {
		return &exitStatus{code: exitFound}
	}
	return nil
}

// runningForText is RUNNING FOR: how long the run has run, or, when its
// start is later than now, that the clock is behind it (as ls's CAUSE says
// of a task the ledger holds ahead of the clock), or that it is a retry
// waiting out its delay (its command has not started).
func runningForText(r catchup.RunningRun) string {
	switch {
	case !r.ClockAhead.IsZero():
		return "clock ahead (" + r.ClockAhead.UTC().Format(time.RFC3339) + ")"
	case r.Waiting:
		return "waiting (retry delay)"
	}
	return runningFor(r)
}

// runningFor is how long r has run, to the nearest second, as
// running_for_s gives it (runningForS).
func runningFor(r catchup.RunningRun) string {
	return catchup.FormatDuration(r.For.Round(time.Second))
}

// runningForS is running_for_s: RUNNING FOR's seconds. Truncated, a run
// started a few milliseconds after its CATCHUP_NOW or its cron minute
// read 599 in JSON where the table said 10m0s.
func runningForS(r catchup.RunningRun) int64 {
	return int64(r.For.Round(time.Second) / time.Second)
}
