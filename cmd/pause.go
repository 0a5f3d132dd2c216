package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
)

// oneTask checks that a command got exactly one TASK argument.
var oneTask = wantTasks(1, 1, "one TASK")

func newPauseCmd(g *globals) *cobra.Command {
	var until string
	c := &cobra.Command{
		Use:   "pause TASK [--until TIME]",
		Short: "Pause a task: its fires exit 0 without running, nothing replayed",
		Long: `Pause TASK from now until TIME (RFC 3339, or a duration from now: 2h, 3d), or
until catchup resume. While paused, a fire of the task exits 0 without running,
with a line saying so, and records its slot as paused; scan records the other
slots of the pause as paused too: they are not replayed (catchup resume
--replay-paused asks for them). ls shows the task as paused. Pausing a paused
task moves the end of its pause. Exit 0, or 2 on error.`,
		Example: `  catchup pause nightly-export --until 2026-12-24T00:00:00Z
  catchup pause nightly-export --until 3d`,
		Args: oneTask,
		RunE: func(c *cobra.Command, args []string) error {
			return runPause(c, g, args[0], until)
		},
	}
	c.ValidArgsFunction = completeFirstTask(g)
	c.Flags().StringVar(&until, "until", "", "end the pause at this time (RFC 3339, or a duration from now like 3d); default: at catchup resume")
	return c
}

// parseUntil reads --until: an RFC 3339 time, or a duration from now.
func parseUntil(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := parseTime(v)
	if _, ok := err.(errOffset); ok {
		return time.Time{}, timeError("--until", v, err, "")
	}
	if err == nil {
		if !t.After(time.Time{}) { // the zero time is "no --until": until catchup resume
			return time.Time{}, fmt.Errorf("--until %s is not in the future: give a later time, or leave it out to pause until catchup resume", shownValue(v))
		}
		return t.UTC(), nil
	}
	d, err := parseDuration(v)
	if errors.Is(err, catchup.ErrDurationTooLong) {
		return time.Time{}, fmt.Errorf("--until %s: %w", shownValue(v), catchup.ErrDurationTooLong)
	}
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--until %s: want an RFC 3339 time (2026-12-24T00:00:00Z) or a positive duration (3d)", quotedValue(v))
	}
	return now.Add(d), nil
}

func runPause(c *cobra.Command, g *globals, task, until string) error {
	if until == "" && c.Flags().Changed("until") {
		return usageErr(c, errors.New("--until is empty: give the end of the pause (2026-12-24T00:00:00Z, or a duration like 3d), or drop --until to pause until catchup resume"))
	}
	if _, err := parseUntil(until, time.Time{}); err != nil {
		return usageErr(c, err)
	}
	st, m, err := openExistingLedger(c.Context(), g, false)
	if err != nil {
		return err
	}
	defer st.Close()
	req := catchup.PauseRequest{Task: task}
	req.Until, _ = parseUntil(until, m.Now())
	res, err := catchup.Pause(c.Context(), st, m, req)
	if err != nil {
		return failure(err)
	}
	end := "until catchup resume " + task
	if !res.Task.PausedUntil.IsZero() {
		end = "until " + res.Task.PausedUntil.UTC().Format(time.RFC3339)
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "paused task %s since %s, %s\n", task, res.Task.PausedAt.UTC().Format(time.RFC3339), end)
	return failure(err)
}

func newResumeCmd(g *globals) *cobra.Command {
	var req catchup.ResumeRequest
	c := &cobra.Command{
		Use:   "resume TASK [--replay-paused]",
		Short: "End a task's pause",
		Long: `End TASK's pause now: its next fires run again. The slots of the pause stay
settled as paused (never replayed), unless --replay-paused: then the next scan
replays them, as missed slots (within the task's catch-up window and replay
policy: resume names those older than the window, which the next scan records
expired, and the backfill that runs them). Exit 0, or 2 on error (an unknown
task, a task that is not paused).`,
		Example: `  catchup resume nightly-export
  catchup resume nightly-export --replay-paused`,
		Args: oneTask,
		RunE: func(c *cobra.Command, args []string) error {
			req.Task = args[0]
			return runResume(c, g, req)
		},
	}
	c.ValidArgsFunction = completeFirstTask(g)
	c.Flags().BoolVar(&req.ReplayPaused, "replay-paused", false, "let scan replay the slots of the pause")
	return c
}

func runResume(c *cobra.Command, g *globals, req catchup.ResumeRequest) error {
	st, m, err := openExistingLedger(c.Context(), g, false)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := catchup.Resume(c.Context(), st, m, req)
	if err != nil {
		return failure(err)
	}
	msg := fmt.Sprintf("resumed task %s; the slots of its pause stay paused, never replayed: catchup resume %s --replay-paused gives them to scan to replay", req.Task, req.Task)
	if req.ReplayPaused {
		msg = replayPausedMessage(req.Task, res)
	}
	_, err = fmt.Fprintln(c.OutOrStdout(), msg)
	return failure(err)
}
