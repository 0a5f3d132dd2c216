package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

func newForgetCmd(g *globals) *cobra.Command {
	var req catchup.ForgetRequest
	c := &cobra.Command{
		Use:   "forget TASK [--purge]",
		Short: "Retire a task: scan stops replaying it; --purge drops its history",
		Long: `Retire TASK: scan no longer replays its slots and ls --missed no longer lists
it. The slots it missed until then are recorded expired (reason retired), and it
says which. Its run history stays (history, show) unless --purge deletes the
task and every run of it.

Remove the task's crontab line (or its catchup run --cron line) first: a later
fire of the task registers it again, as a new task from that fire (the slots
between are never missed); forget warns when the line is still in the crontab
the task came from. scan retires a task discovered in a crontab by itself when
its line is gone. Exit 0, or 2 on error (an unknown task; --purge of a task with
a run in progress).`,
		Example: `  catchup forget old-report
  catchup forget old-report --purge`,
		Args: oneTask,
		RunE: func(c *cobra.Command, args []string) error {
			req.Task = args[0]
			return runForget(c, g, req)
		},
	}
	c.ValidArgsFunction = completeFirstTask(g)
	c.Flags().BoolVar(&req.Purge, "purge", false, "delete the task's history too")
	return c
}

func runForget(c *cobra.Command, g *globals, req catchup.ForgetRequest) error {
	// the boot: a dead run of an earlier boot it marks (expireMissed) ended
	// by this boot's start, as scan records it (deadBy)
	st, m, err := openExistingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := catchup.Forget(c.Context(), st, m, req)
	if err != nil {
		return failure(err)
	}
	out := c.OutOrStdout()
	if res.AlreadyRetired && !req.Purge {
		_, err = fmt.Fprintf(out, "task %s was already retired at %s: nothing changed (--purge deletes its history)\n",
			req.Task, res.Task.RetiredAt.UTC().Format(time.RFC3339))
	} else if req.Purge {
		_, err = fmt.Fprintf(out, "forgot task %s and deleted its %s\n", req.Task, counted(int(res.PurgedRuns), "run", "runs"))
	} else {
		unknown := ""
		if res.Unknown != "" {
			unknown = " " + res.Unknown + ";"
		}
		_, err = fmt.Fprintf(out, "forgot task %s: scan no longer replays it;%s%s%s%s its history is kept (--purge deletes it)\n",
			req.Task, unknown, pausedSlots(res.Paused), expiredSlots(res.Expired), recentSlots(res.Recent))
	}
	return failure(err)
}

// recentSlots names the missed slots forget left unrecorded, younger than
// the tolerance; "" when none.
func recentSlots(slots []time.Time) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch n := len(slots); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" the slot %s, younger than the tolerance, is not recorded: a fire of it may still come;", rfc(slots[0]))
	default:
		return fmt.Sprintf(" the %d slots younger than the tolerance (%s to %s) are not recorded: a fire of them may still come;",
			n, rfc(slots[0]), rfc(slots[n-1]))
	}
}

// expiredSlots says which slots forget recorded expired, "" when none.
func expiredSlots(slots []time.Time) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch n := len(slots); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" the slot it missed (%s) is recorded expired (%s);", rfc(slots[0]), store.ReasonRetired)
	default:
		return fmt.Sprintf(" the %d slots it missed (%s to %s) are recorded expired (%s);", n, rfc(slots[0]), rfc(slots[n-1]), store.ReasonRetired)
	}
}

// pausedSlots names the slots of the task's pause that forget recorded
// paused; "" when none.
func pausedSlots(slots []time.Time) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch n := len(slots); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" the slot of its pause (%s) is recorded paused;", rfc(slots[0]))
	default:
		return fmt.Sprintf(" the %d slots of its pause (%s to %s) are recorded paused;", n, rfc(slots[0]), rfc(slots[n-1]))
	}
}
