package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// scanFlags are scan's flags; the request in it is checked by runScan.
type scanFlags struct {
	output   string
	crontabs []string
	req      catchup.ScanRequest
}

func newScanCmd(g *globals) *cobra.Command {
	var sf scanFlags
	c := &cobra.Command{
		Use:   "scan [flags]",
		Short: "Replay every cron slot that was missed, oldest first, each exactly once",
		Long: `Compare each task's schedule with the recorded fires and replay every slot that was
missed (the host was down, catchup was killed, the run was interrupted), oldest first,
each once, with CATCHUP_TRIGGER=replay and the CATCHUP_SLOT it stands for.

Tasks: every task registered with a schedule (catchup run --cron), plus every
"catchup run" line in the --crontab files, whose time fields are the schedule.
Replayed jobs write their output to stderr; stdout carries scan's report.

Run it at boot (systemd: a oneshot unit before cron, or ExecStartPre=catchup scan)
and periodically. Exit status: 0 nothing to do or every replay succeeded; 1 a
replay failed; 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runScan(c, g, sf) },
	}
	f := c.Flags()
	f.StringVarP(&sf.output, "output", "o", "table", "output format: table|json")
	f.StringArrayVar(&sf.req.Tasks, "task", nil, "scan only this task (repeatable)")
	f.StringArrayVar(&sf.crontabs, "crontab", nil, "crontab file to discover catchup lines in (repeatable; - is stdin)")
	f.StringVar(&sf.req.Replay, "replay", "", "override each task's policy: all|latest|coalesce|none")
	f.IntVar(&sf.req.MaxReplays, "max-replays", 100, "replay at most the N most recent missed slots per task; older ones are recorded skipped")
	f.BoolVar(&sf.req.DryRun, "dry-run", false, "print the plan and change nothing")
	f.StringVar(&sf.req.NotifyCmd, "notify-cmd", "", "run this (sh -c) for each task with missed slots, with CATCHUP_TASK, CATCHUP_STATUS=missed, CATCHUP_MISSED, CATCHUP_MISSED_SLOTS, CATCHUP_REPLAYED, CATCHUP_FAILED, CATCHUP_SKIPPED (default: the task's own --notify-cmd)")
	addMissedFlags(c, &sf.req.MissedRule)
	addParallelFlags(c, &sf.req.Parallel)
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	return c
}

func runScan(c *cobra.Command, g *globals, sf scanFlags) error {
	if err := checkOutput(sf.output, "table", "json"); err != nil {
		return usageErr(c, err)
	}
	if err := checkRule(sf.req.MissedRule); err != nil {
		return usageErr(c, err)
	}
	if sf.req.MaxReplays < 1 {
		return usageErr(c, fmt.Errorf("--max-replays must be at least 1"))
	}
	if sf.req.Replay != "" {
		if err := catchup.CheckPolicy(sf.req.Replay); err != nil {
			return usageErr(c, err)
		}
	}
	if err := checkParallel(sf.req.Parallel); err != nil {
		return usageErr(c, err)
	}
	for _, p := range sf.crontabs {
		src, err := readCrontab(p)
		if err != nil {
			return failure(err)
		}
		sf.req.Crontabs = append(sf.req.Crontabs, src)
	}
	st, m, err := openLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	if !sf.req.DryRun && !store.IsPostgres(m.DB) {
		if err := store.CheckPrivate(m.DB, m.UID); err != nil {
			return failure(fmt.Errorf("refusing to replay: %w", err))
		}
	}
	endBar := func() {}
	if isTerminal(os.Stderr) && !sf.req.DryRun {
		bar := &progressBar{w: os.Stderr}
		sf.req.Progress, endBar = bar.update, bar.finish
	}
	rep, err := catchup.Scan(c.Context(), st, m, sf.req)
	endBar()
	if err != nil {
		return failure(err)
	}
	for _, w := range rep.Warnings {
		m.Notice("warning: %s", w)
	}
	for _, t := range rep.Tasks {
		for _, w := range t.Warnings {
			m.Notice("warning: %s", w)
		}
	}
	out := c.OutOrStdout()
	if sf.output == "json" {
		err = renderJSON(out, scanJSON(rep))
	} else {
		err = writeScanText(out, rep, sf.req.DryRun)
	}
	if err != nil {
		return failure(err)
	}
	if rep.Failed() {
		return &exitStatus{code: exitFound}
	}
	return nil
}

// readCrontab names a crontab for scan: stdin is read here; a file is
// read by scan itself, through cron's checks of its owner and mode.
func readCrontab(name string) (catchup.CrontabSource, error) {
	src := catchup.CrontabSource{Name: name}
	if name != "-" {
		var err error
		src.Path, err = filepath.Abs(name)
		return src, err
	}
	src.Name = "(stdin)"
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return src, fmt.Errorf("read crontab: %w", err)
	}
	src.R = bytes.NewReader(data)
	return src, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func writeScanText(w io.Writer, rep catchup.ScanReport, dry bool) error {
	var missed, replayed, failed, skipped, left int
	for _, t := range rep.Tasks {
		missed += len(t.Missed)
		replayed, failed, skipped, left = replayed+t.Replayed, failed+t.Failed, skipped+t.Skipped, left+t.Left
		if dry {
			fmt.Fprintf(w, "%s: %d missed (policy %s)\n", t.Task, len(t.Missed), t.Policy)
			for _, a := range t.Actions {
				fmt.Fprintf(w, "  %s  %s\n", a.Slot.UTC().Format(time.RFC3339), a.Action)
			}
			continue
		}
		fmt.Fprintf(w, "%s: %d missed, replayed %d, failed %d, skipped %d%s\n", t.Task, len(t.Missed), t.Replayed, t.Failed, t.Skipped, leftSuffix(t.Left))
		for _, a := range t.Actions {
			if a.Action == catchup.ActionFailed {
				fmt.Fprintf(w, "  %s  failed, exit %d%s\n", a.Slot.UTC().Format(time.RFC3339), a.ExitCode, reasonSuffix(a.Reason))
			}
		}
	}
	verb := "scanned"
	if dry {
		verb = "dry run:"
	}
	_, err := fmt.Fprintf(w, "%s %d tasks, %d missed slots: replayed %d, failed %d, skipped %d%s\n",
		verb, len(rep.Tasks), missed, replayed, failed, skipped, leftSuffix(left))
	return err
}

type scanActionJSON struct {
	Slot     *string `json:"slot"`
	Action   string  `json:"action"`
	RunID    *int64  `json:"run_id"`
	ExitCode int     `json:"exit_code"`
	Reason   string  `json:"reason,omitempty"`
}

type scanTaskJSON struct {
	Task        string           `json:"task"`
	Policy      string           `json:"policy"`
	Missed      int              `json:"missed"`
	MissedSlots []*string        `json:"missed_slots"`
	Replayed    int              `json:"replayed"`
	Failed      int              `json:"failed"`
	Skipped     int              `json:"skipped"`
	Left        int              `json:"left,omitempty"`
	Actions     []scanActionJSON `json:"actions"`
	Warnings    []string         `json:"warnings"`
}

func scanJSON(rep catchup.ScanReport) any {
	tasks := []scanTaskJSON{}
	for _, t := range rep.Tasks {
		j := scanTaskJSON{Task: t.Task, Policy: t.Policy, Missed: len(t.Missed), MissedSlots: []*string{},
			Replayed: t.Replayed, Failed: t.Failed, Skipped: t.Skipped, Left: t.Left, Actions: []scanActionJSON{},
			Warnings: append([]string{}, t.Warnings...)}
		for _, s := range t.Missed {
			j.MissedSlots = append(j.MissedSlots, jsonTime(s))
		}
		for _, a := range t.Actions {
			aj := scanActionJSON{Slot: jsonTime(a.Slot), Action: a.Action, ExitCode: a.ExitCode, Reason: a.Reason}
			if a.RunID != 0 {
				id := a.RunID
				aj.RunID = &id
			}
			j.Actions = append(j.Actions, aj)
		}
		tasks = append(tasks, j)
	}
	return map[string]any{"tasks": tasks, "warnings": append([]string{}, rep.Warnings...)}
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + printable(r)
}
