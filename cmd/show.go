package cmd

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/store"
)

// showRequest is one run to show: by id, or the latest run (of task, or
// of any task when task is "").
type showRequest struct {
	id     int64
	task   string
	latest bool
}

func newShowCmd(g *globals) *cobra.Command {
	var output, task string
	var raw, last bool
	c := &cobra.Command{
		Use:                   "show RUN_ID | --task TASK --last | --last [-o text|json] [--raw]",
		DisableFlagsInUseLine: true, // its Use lists its flags; with " [flags]" it passed 80 columns
		Annotations:           map[string]string{readsOnly: "true"},
		Short:                 "Show one run in full, with the tails of its output",
		Long: `Show one run in full, with the last 64 KiB of its stdout and of its stderr.

Control characters in what the ledger holds (a job's output, its checkpoint
note, another host's name) are shown escaped, like \x1b, so that reading a run
never drives the terminal. --raw prints the output tails as the job wrote them
(the other fields stay escaped): use it to pipe a tail into a file or a pager
that knows.

RUN_ID is a number from catchup history; --task TASK --last shows TASK's latest
run, --last alone the latest run of any task. Exit 0, or 2 on error (an unknown
run or task); 128+N when stopped by signal N.`,
		Example: `  catchup show 42
  catchup show --task nightly-backup --last`,
		Args: wantArgs(0, 1, "at most one RUN_ID"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return usageErr(c, err)
			}
			if raw && output == "json" {
				return usageErr(c, errors.New("--raw does not apply to -o json: JSON escapes the output tails itself"))
			}
			if c.Flags().Changed("task") && task == "" {
				return usageErr(c, errors.New("empty --task: name a task (catchup ls lists them), or drop --task for the latest run of any task"))
			}
			req, err := checkShow(args, task, last)
			if err != nil {
				return usageErr(c, err)
			}
			return runShow(c, g, req, output, raw)
		},
	}
	c.ValidArgsFunction = cobra.NoFileCompletions
	c.Flags().StringVar(&task, "task", "", "with --last: show this task's latest run")
	c.Flags().BoolVar(&last, "last", false, "show the latest run (of --task, else of any task)")
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	c.Flags().StringVarP(&output, "output", "o", "text", "output format: text|json")
	c.Flags().BoolVar(&raw, "raw", false, "print the output tails unescaped, control characters and all")
	return c
}

type showJSON struct {
	runJSON
	Progress   *int   `json:"progress"`
	Checkpoint string `json:"checkpoint"`
	Signal     int    `json:"signal"`
	BootID     string `json:"boot_id"`
	Error      string `json:"error"`
	StdoutTail string `json:"stdout_tail"`
	StderrTail string `json:"stderr_tail"`
}

// checkShow turns show's arguments into one request.
func checkShow(args []string, task string, last bool) (showRequest, error) {
	switch {
	case len(args) == 1 && last:
		return showRequest{}, errors.New("give a RUN_ID or --last, not both")
	case len(args) == 1 && task != "":
		return showRequest{}, fmt.Errorf("give a RUN_ID, or --task %s --last for its latest run, not both: a run id names one run of any task", taskWord(task))
	case len(args) == 1:
		id, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || id <= 0 {
			return showRequest{}, fmt.Errorf("invalid run id %q: want a positive number from catchup history", redact.Value(args[0]))
		}
		return showRequest{id: id}, nil
	case task != "" && !last:
		return showRequest{}, fmt.Errorf("--task needs --last: catchup show --task %s --last shows its latest run", taskWord(task))
	case last:
		return showRequest{task: task, latest: true}, nil
	}
	return showRequest{}, errors.New("which run? give a RUN_ID (catchup history lists them), or --task TASK --last for a task's latest run")
}

func runShow(c *cobra.Command, g *globals, req showRequest, output string, raw bool) error {
	st, m, err := openReadingLedger(c.Context(), g, true) // the boot: a dead run of an earlier one ended by its start
	if err != nil {
		return err
	}
	defer st.Close()
	id := req.id
	if req.latest {
		runs, err := st.History(c.Context(), store.HistoryFilter{Task: req.task, Limit: 1})
		if err != nil {
			return failure(err)
		}
		if len(runs) == 0 && req.task != "" {
			if _, err := st.Task(c.Context(), req.task); errors.Is(err, store.ErrNotFound) {
				return failure(catchup.UnknownTask(req.task))
			} else if err != nil {
				return failure(err)
			}
			return failure(fmt.Errorf("no runs of task %q in the ledger yet", req.task))
		}
		if len(runs) == 0 {
			return failure(errors.New("no runs in the ledger yet"))
		}
		id = runs[0].ID
	}
	r, err := st.Run(c.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return failure(fmt.Errorf("no run %d in the ledger; catchup history lists them", id))
	}
	if err != nil {
		return failure(err)
	}
	if r, err = catchup.ReadRun(c.Context(), st, m, r); err != nil {
		return failure(err)
	}
	out := c.OutOrStdout()
	if output == "json" {
		return failure(renderJSON(out, showJSON{runJSON: toRunJSON(r, m.Now()), Progress: r.Progress, Checkpoint: r.Checkpoint, Signal: r.Signal, BootID: r.BootID,
			Error: r.Error, StdoutTail: string(r.StdoutTail), StderrTail: string(r.StderrTail)}))
	}
	zones, err := catchup.RunZones(c.Context(), st, m, []store.Run{r})
	if err != nil {
		return failure(err)
	}
	return failure(writeRunText(out, r, runZone(zones, r.Task), raw, m.Now()))
}

// endedText is show's end of run r: for a run found dead, a bound
// (catchup.EndIsBound), said so.
func endedText(r store.Run, loc *time.Location) string {
	if catchup.EndIsBound(r) {
		return timeText(r.EndedAt, loc) + " (at the latest: found dead)"
	}
	return timeText(r.EndedAt, loc)
}

// statusText is show's status of run r as of now: of a retry waiting out
// its delay, said so (catchup.WaitsRetryDelay), and started names the
// delay's start; of one still marked so past any delay, why it should
// have started (catchup.RetryStartOverdue).
func statusText(r store.Run, now time.Time) (status, started string) {
	if catchup.WaitsRetryDelay(r, now) {
		return r.Status + " (" + catchup.RetryDelayWait + ")", " (its retry delay began)"
	}
	if overdue := catchup.RetryStartOverdue(r, now); overdue != "" {
		return r.Status + " (" + overdue + ")", ""
	}
	return r.Status, ""
}

// writeRunText prints a run for people: every field escaped (printable),
// the output tails too unless raw; its times in RFC 3339 in its task's
// zone loc (catchup.RunZones), as CATCHUP_SLOT gives the slot.
func writeRunText(w io.Writer, r store.Run, loc *time.Location, raw bool, now time.Time) error {
	status, began := statusText(r, now)
	fields := [][2]string{
		{"id", strconv.FormatInt(r.ID, 10)}, {"task", r.Task}, {"slot", timeText(r.Slot, loc)}, {"trigger", r.Trigger},
		{"status", status}, {"attempt", strconv.Itoa(r.Attempt)}, {"exit code", exitText(r.ExitCode)},
		{"signal", signalText(r.Signal)}, {"started", timeText(r.StartedAt, loc) + began}, {"ended", endedText(r, loc)},
		{"duration", durationText(r, true)}, {"host", r.Host}, {"pid", strconv.Itoa(r.PID)}, {"boot id", r.BootID},
		{"error", dash(r.Error)}, {"progress", progressText(r)}, {"checkpoint", dash(r.Checkpoint)},
	}
	for _, f := range fields {
		if _, err := fmt.Fprintf(w, "%-11s %s\n", f[0]+":", printable(f[1])); err != nil {
			return err
		}
	}
	for _, t := range []struct {
		name string
		data []byte
	}{{"stdout tail", r.StdoutTail}, {"stderr tail", r.StderrTail}} {
		fmt.Fprintf(w, "--- %s (%d bytes) ---\n", t.name, len(t.data))
		if !raw {
			t.data = []byte(printableText(string(t.data)))
		}
		w.Write(t.data)
		if n := len(t.data); n > 0 && t.data[n-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
	return nil
}
