package cmd

import (
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
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
}

// runLsRunning is `ls --running [--stuck DUR]`: the runs in progress and
// how long they have run; with --stuck, exit 1 when one ran longer.
func runLsRunning(c *cobra.Command, g *globals, output string, stuck time.Duration) error {
	st, m, err := openExistingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	running, err := catchup.Running(c.Context(), st, m)
	if err != nil {
		return failure(err)
	}
	isStuck := false
	rows := []runningJSON{}
	var table [][]string
	for _, r := range running {
		if stuck > 0 && r.For > stuck {
			isStuck = true
		}
		rows = append(rows, runningJSON{ID: r.Run.ID, Task: r.Run.Task, Slot: jsonTime(r.Run.Slot), Host: r.Run.Host,
			PID: r.Run.PID, StartedAt: jsonTime(r.Run.StartedAt), RunningForS: int64(r.For / time.Second),
			ClockAhead: jsonTime(r.ClockAhead)})
		table = append(table, []string{strconv.FormatInt(r.Run.ID, 10), r.Run.Task, tableTime(r.Run.Slot, shownZone()),
			r.Run.Host, strconv.Itoa(r.Run.PID), tableTime(r.Run.StartedAt, shownZone()), runningForText(r)})
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
	if isStuck {
		m.Notice("a run has been running for longer than %s", formatDuration(stuck))
		return &exitStatus{code: exitFound}
	}
	return nil
}

// runningForText is RUNNING FOR: how long the run has run, or, when its
// start is later than now, that the clock is behind it (as ls's CAUSE says
// of a task the ledger holds ahead of the clock).
func runningForText(r catchup.RunningRun) string {
	if !r.ClockAhead.IsZero() {
		return "clock ahead (" + r.ClockAhead.UTC().Format(time.RFC3339) + ")"
	}
	return r.For.Round(time.Second).String()
}
