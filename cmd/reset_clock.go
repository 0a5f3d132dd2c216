package cmd

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

func newResetClockCmd(g *globals) *cobra.Command {
	var dry bool
	c := &cobra.Command{
		Use:   "reset-clock TASK... [--dry-run]",
		Short: "Detach the runs of a clock that was ahead, so scan replays again",
		Long: `When a task's ledger holds a slot later than now, scan does not replay the task:
the clock went back, and the slots in between already ran. When instead the
clock was wrong (ahead) at the time, as in a glitch that set it to 2031 for a
moment, that record would hide the task from every scan until then; ls --missed
shows such a task with the cause "clock ahead", and catchup_clock_ahead_seconds
says by how much.

reset-clock takes the present clock as right: each run recorded for a slot later
than now is detached from its slot (it stays in the history, without a slot,
with a note in its error), expiries decided at a time later than now are
deleted, and a watermark, a registration or a schedule change (when it took
effect) later than now is brought back (the watermark to the start of the task's
catch-up window). The next scan replays the task's missed slots again.

Do not use it after a legitimate step back of a correct clock: the slots
recorded ahead did run, and would run again when their time comes. Exit 0, or 2
on error.`,
		Example: `  catchup reset-clock --dry-run daily-settle
  catchup reset-clock daily-settle`,
		Args: wantTasks(1, -1, "one TASK or more"),
		RunE: func(c *cobra.Command, args []string) error {
			st, m, err := openExistingLedger(c.Context(), g, false)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, name := range args { // every one known, before any changes
				if _, err := st.Task(c.Context(), name); errors.Is(err, store.ErrNotFound) {
					return failure(catchup.UnknownTask(name))
				}
			}
			out := c.OutOrStdout()
			for _, name := range args {
				res, err := catchup.ResetClock(c.Context(), st, m, name, dry)
				if err != nil {
					return failure(err)
				}
				writeReset(out, res, dry)
			}
			return nil
		},
	}
	c.ValidArgsFunction = completeTasks(g)
	c.Flags().BoolVar(&dry, "dry-run", false, "say what would change, change nothing")
	return c
}

// writeReset says what reset-clock changed (or would) for one task.
func writeReset(w io.Writer, r catchup.ClockReset, dry bool) {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	say := func(done, would string, args ...any) {
		f := done
		if dry {
			f = would
		}
		fmt.Fprintf(w, "%s: "+f+"\n", append([]any{r.Task}, args...)...)
	}
	for _, run := range r.Detached {
		say("run %d detached from slot %s (later than now)", "run %d would be detached from slot %s (later than now)",
			run.ID, rfc(run.Slot))
	}
	if r.DeletedExpired > 0 {
		say("%d expiries decided while the clock was ahead deleted", "%d expiries decided while the clock was ahead would be deleted",
			r.DeletedExpired)
	}
	if !r.Settled.IsZero() {
		say("slots from %s are checked again (they counted as settled up to %s)",
			"slots from %s would be checked again (they count as settled up to %s)", rfc(r.Floor.Add(time.Second)), rfc(r.Settled))
	}
	if !r.Registered.IsZero() {
		say("registration moved back from %s", "registration would move back from %s", rfc(r.Registered))
	}
	if !r.ScheduleSince.IsZero() {
		say("its schedule counts from %s again (it counted from %s, set while the clock was ahead)",
			"its schedule would count from %s again (it counts from %s, set while the clock was ahead)", rfc(r.Floor.Add(time.Second)), rfc(r.ScheduleSince))
	}
	if !r.PausedAt.IsZero() {
		say("its pause counts from %s again (it began at %s, set while the clock was ahead)",
			"its pause would count from %s again (it begins at %s, set while the clock was ahead)", rfc(r.PausedFrom), rfc(r.PausedAt))
	}
	if !r.PausedUntil.IsZero() {
		say("its pause lasts until catchup resume %s (its end, %s, was set while the clock was ahead)",
			"its pause would last until catchup resume %s (its end, %s, was set while the clock was ahead)", r.Task, rfc(r.PausedUntil))
	}
	if len(r.Detached) == 0 && r.DeletedExpired == 0 && r.Settled.IsZero() && r.Registered.IsZero() && r.ScheduleSince.IsZero() && r.PausedAt.IsZero() {
		fmt.Fprintf(w, "%s: nothing recorded later than now\n", r.Task)
	}
}
