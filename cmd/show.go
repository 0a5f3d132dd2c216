package cmd

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/store"
)

func newShowCmd(g *globals) *cobra.Command {
	var output string
	var raw bool
	c := &cobra.Command{
		Use:   "show RUN_ID [-o text|json] [--raw]",
		Short: "Show one run in full, with the tails of its output",
		Long: `Show one run in full, with the last 64 KiB of its stdout and of its stderr.

Control characters in what the ledger holds (a job's output, its checkpoint note,
another host's name) are shown escaped, like \x1b, so that reading a run never
drives the terminal. --raw prints the output tails as the job wrote them (the other
fields stay escaped): use it to pipe a tail into a file or a pager that knows.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return usageErr(c, err)
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageErr(c, fmt.Errorf("invalid run id %q: want a positive number from catchup history", args[0]))
			}
			return runShow(c, g, id, output, raw)
		},
	}
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

func runShow(c *cobra.Command, g *globals, id int64, output string, raw bool) error {
	st, _, err := openExistingLedger(c.Context(), g, false)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := st.Run(c.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return failure(fmt.Errorf("no run %d in the ledger; catchup history lists them", id))
	}
	if err != nil {
		return failure(err)
	}
	out := c.OutOrStdout()
	if output == "json" {
		return failure(renderJSON(out, showJSON{runJSON: toRunJSON(r), Progress: r.Progress, Checkpoint: r.Checkpoint, Signal: r.Signal, BootID: r.BootID,
			Error: r.Error, StdoutTail: string(r.StdoutTail), StderrTail: string(r.StderrTail)}))
	}
	return failure(writeRunText(out, r, raw))
}

// writeRunText prints a run for people: every field escaped (printable),
// the output tails too unless raw.
func writeRunText(w io.Writer, r store.Run, raw bool) error {
	fields := [][2]string{
		{"id", strconv.FormatInt(r.ID, 10)}, {"task", r.Task}, {"slot", slotText(r)}, {"trigger", r.Trigger},
		{"status", r.Status}, {"attempt", strconv.Itoa(r.Attempt)}, {"exit code", exitText(r.ExitCode)},
		{"signal", strconv.Itoa(r.Signal)}, {"started", timeText(r.StartedAt)}, {"ended", timeText(r.EndedAt)},
		{"duration", durationText(r)}, {"host", r.Host}, {"pid", strconv.Itoa(r.PID)}, {"boot id", r.BootID},
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
