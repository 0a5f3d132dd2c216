package cmd

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

type lsConfig struct {
	output     string
	onlyMissed bool
	running    bool
	stuck      time.Duration
	rule       catchup.MissedRule
}

func newLsCmd(g *globals) *cobra.Command {
	var cfg lsConfig
	c := &cobra.Command{
		Use:         "ls [--missed | --running [--stuck DUR]] [-o table|wide|json]",
		Annotations: map[string]string{readsOnly: "true"},
		Short:       "List tasks: schedule, latest run, next slot, missed slots",
		Long: `List every known task with its schedule, the slot and status of its latest run,
its next slot and how many slots were missed (computed with scan's rule).

With --missed only tasks with missed slots (or whose ledger is ahead of the
clock, see catchup reset-clock) are shown, with a CAUSE column saying why they
were missed, and the exit status is 1 when there is any, 0 when none: a CI smoke
check and a monitoring probe.
With --running, the runs in progress are shown; --stuck DUR exits 1 when one has
run longer than DUR (a retry waiting out its --retry-delay has not run yet).
Errors exit 2.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runLs(c, g, cfg) },
	}
	f := c.Flags()
	f.StringVarP(&cfg.output, "output", "o", "table", "output format: table|wide|json (wide: TZ, LAST RUN and NEXT too)")
	f.BoolVar(&cfg.onlyMissed, "missed", false, "show only tasks with missed slots; exit 1 when there is any")
	f.BoolVar(&cfg.running, "running", false, "show the runs in progress and how long they have run")
	durationVar(f, &cfg.stuck, "stuck", 0, "with --running: exit 1 when a run has run longer than this (a monitoring probe)")
	addMissedFlags(c, &cfg.rule)
	return c
}

type lsRow struct {
	Task          string    `json:"task"`
	Schedule      *string   `json:"schedule"`
	TZ            string    `json:"tz"`
	LastSlot      *string   `json:"last_slot"`
	LastStatus    *string   `json:"last_status"`
	LastStartedAt *string   `json:"last_started_at"`
	NextSlot      *string   `json:"next_slot"`
	Missed        int       `json:"missed"`
	MissedSlots   []*string `json:"missed_slots"`
	MissedCauses  []string  `json:"missed_causes"`
	Expiring      int       `json:"expiring"`
	Expired       int64     `json:"expired"`
	ClockAhead    *string   `json:"clock_ahead"`
	Progress      *int      `json:"progress"`
	Checkpoint    string    `json:"checkpoint,omitempty"`
	Paused        bool      `json:"paused"`
	PausedUntil   *string   `json:"paused_until"` // null: until catchup resume (or not paused)
	RetiredAt     *string   `json:"retired_at"`
	// ScheduleError: why the registered schedule cannot be read (its
	// missed slots cannot be computed); left out when it can.
	ScheduleError string `json:"schedule_error,omitempty"`
	// NotReplayable: a run --cron task whose command the ledger keeps
	// redacted (catchup.Unreplayable): no scan replays its missed slots;
	// left out when false.
	NotReplayable bool `json:"not_replayable,omitempty"`
	// StartRefused: why no replay of its missed slots starts, its working
	// directory refused (TaskStatus.StartRefused); left out when none is.
	StartRefused string `json:"start_refused,omitempty"`
	// ExpiringReason: why the next scan records all its missed slots
	// expired, its crontab line edited or removed (TaskStatus.Left), as
	// it records them; left out when it does not.
	ExpiringReason string `json:"expiring_reason,omitempty"`
}

func runLs(c *cobra.Command, g *globals, cfg lsConfig) error {
	if err := checkOutput(cfg.output, "table", "wide", "json"); err != nil {
		return usageErr(c, err)
	}
	if err := checkRule(c, &cfg.rule); err != nil {
		return usageErr(c, err)
	}
	if cfg.stuck < 0 {
		return usageErr(c, fmt.Errorf("--stuck cannot be negative"))
	}
	if c.Flags().Changed("stuck") && !cfg.running {
		return usageErr(c, fmt.Errorf("--stuck needs --running"))
	}
	if c.Flags().Changed("stuck") && cfg.stuck == 0 {
		// Zero is a value: read as "no probe", it switched the probe off
		// without a word.
		return usageErr(c, fmt.Errorf("--stuck 0 would call every run stuck: give how long a run may take, like --stuck 2h"))
	}
	if cfg.running && cfg.onlyMissed {
		// A probe given both would pass on the running table alone.
		return usageErr(c, fmt.Errorf("--missed and --running are two probes: give one"))
	}
	if cfg.running {
		if err := refuseFlags(c, "does not apply to --running: it lists the runs in progress, not missed slots",
			"max-age", "tolerance", "retry-failed"); err != nil {
			return usageErr(c, err)
		}
		return runLsRunning(c, g, cfg.output, cfg.stuck)
	}
	st, m, err := openReadingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	counts := catchup.CountsNone // text ls shows no count
	if cfg.output == "json" {
		counts = catchup.CountsExpired // its expired field
	}
	tasks, err := catchup.List(c.Context(), st, m, catchup.ListRequest{Rule: cfg.rule, Counts: counts, StartRefused: true})
	if err != nil {
		return failure(err)
	}
	if lost := store.LostRecords(st); lost != "" && store.OpenWarning(st) == "" {
		// The wal-lost causes' window and fix; one line: the open that
		// found the loss (and left the mark) said it already.
		m.Notice("warning: %s", lost)
	}
	rows := []lsRow{}
	var table [][]string
	for _, t := range tasks {
		if t.Warning != "" {
			m.Notice("warning: task %s: %s", t.Task.Name, t.Warning)
		}
		if cfg.onlyMissed && len(t.Missed) == 0 && t.ClockAhead.IsZero() && t.BadSchedule == "" {
			continue
		}
		r := lsRow{Task: t.Task.Name, TZ: t.Task.TZ, NextSlot: jsonTime(t.Next), LastSlot: jsonTime(t.LastSlot),
			Missed: len(t.Missed), MissedSlots: []*string{}, MissedCauses: append([]string{}, t.Causes...),
			Expiring: t.Expiring, Expired: t.Counts[store.StatusExpired], ClockAhead: jsonTime(t.ClockAhead),
			Paused: t.Paused, NotReplayable: catchup.Unreplayable(t.Task), RetiredAt: jsonTime(t.Task.RetiredAt),
			ScheduleError: t.BadSchedule}
		refused := t.StartRefused
		if refused != nil {
			m.Notice("warning: task %s: its missed slots stay missed, no replay starts: %v", t.Task.Name, refused)
			r.StartRefused = refused.Error()
		}
		if t.Left != nil {
			m.Notice("warning: task %s: %s", t.Task.Name, t.Left.Warning)
			r.ExpiringReason = t.Left.Reason
		}
		if t.Paused {
			r.PausedUntil = jsonTime(t.Task.PausedUntil)
		}
		if t.Task.Schedule != "" {
			r.Schedule = &t.Task.Schedule
		}
		status := "-"
		if t.Latest != nil {
			r.LastStatus, r.LastStartedAt = &t.Latest.Status, jsonTime(t.Latest.StartedAt)
			r.Progress, r.Checkpoint = t.Latest.Progress, t.Latest.Checkpoint
			status = t.Latest.Status
			if t.Latest.Progress != nil && t.Latest.Status == "running" {
				status = fmt.Sprintf("running %d%%", *t.Latest.Progress)
			}
		}
		status = lifecycleStatus(t, status)
		for _, s := range t.Missed {
			r.MissedSlots = append(r.MissedSlots, jsonTime(s))
		}
		rows = append(rows, r)
		loc := t.Zone
		lastRun := "-"
		if t.Latest != nil {
			lastRun = tableTime(t.Latest.StartedAt, loc)
		}
		row := []string{t.Task.Name, dash(t.Task.Schedule), dash(t.Task.TZ), tableTime(t.LastSlot, loc), status,
			lastRun, tableTime(t.Next, loc), strconv.Itoa(len(t.Missed))}
		if t.BadSchedule != "" {
			row[7] = "?" // not computed
		}
		if cfg.onlyMissed {
			row = append(row, causeSummary(t, refused))
		}
		table = append(table, row)
	}
	out := c.OutOrStdout()
	// The default columns fit 80; wide adds TZ, LAST RUN and NEXT (and,
	// with --missed, SCHEDULE, which gives way to CAUSE).
	wide := cfg.output == "wide"
	header := []string{"TASK", "SCHEDULE", "TZ", "LAST SLOT", "STATUS", "LAST RUN", "NEXT", "MISSED"}
	keep := []bool{true, wide || !cfg.onlyMissed, wide, true, true, wide, wide, true}
	if cfg.onlyMissed {
		header, keep = append(header, "CAUSE"), append(keep, true)
	}
	header, table = pickColumns(header, table, keep)
	if cfg.output == "json" {
		err = renderJSON(out, rows)
	} else if len(table) > 0 || !cfg.onlyMissed {
		err = renderTable(out, header, table)
	}
	if err != nil {
		return failure(err)
	}
	if cfg.onlyMissed && len(rows) > 0 {
		return &exitStatus{code: exitFound}
	}
	return nil
}
