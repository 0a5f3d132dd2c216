package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/store"
)

func newProgressCmd(g *globals) *cobra.Command {
	var note string
	c := &cobra.Command{
		Use:   "progress PERCENT [--note TEXT]",
		Short: "Record a running job's progress and checkpoint (from the job)",
		Long: `Record how far the running job is (0-100) and, with --note, a checkpoint: a
short text the job can resume from, at most 4096 bytes (keep the job's state in
a file, and name it in the note). Call it from inside a job started by catchup:
it finds its run through CATCHUP_RUN_ID, and reports through the catchup running
the job (CATCHUP_PROGRESS_FD), which records it: the job needs no ledger
password. Where that descriptor is gone (a job that closed it), it opens the
ledger in CATCHUP_DB.

ls and show display the progress. When a slot is replayed after an interrupted
run, the replay gets the last note as CATCHUP_CHECKPOINT, with
CATCHUP_RESUMED=1, so that the job can continue where it stopped. Exit 0, or 2
on error.`,
		Example: `  catchup progress 40 --note "rows up to id 81234 settled"`,
		Args:    wantArgs(1, 1, "one PERCENT (0-100)"),
		RunE: func(c *cobra.Command, args []string) error {
			pct, err := strconv.Atoi(args[0])
			if err != nil || pct < 0 || pct > 100 {
				return usageErr(c, fmt.Errorf("invalid PERCENT %q: want a whole number from 0 to 100", redact.Value(args[0])))
			}
			if givenEmpty(c, "note") {
				return usageErr(c, errors.New("--note is empty: give the checkpoint, or drop --note to keep the last one"))
			}
			if err := catchup.CheckNote(note); err != nil {
				return failure(err)
			}
			v := os.Getenv("CATCHUP_RUN_ID")
			id, err := strconv.ParseInt(v, 10, 64)
			switch {
			case v == "":
				return usageErr(c, errors.New("CATCHUP_RUN_ID is not set: call catchup progress from inside a job that catchup runs"))
			case err == nil && id == 0: // run's job, run unrecorded
				return usageErr(c, errors.New("CATCHUP_RUN_ID is 0: this run is not recorded (its ledger was unusable when it started), so its progress cannot be recorded"))
			case err != nil || id < 0:
				return usageErr(c, fmt.Errorf("CATCHUP_RUN_ID %s is not a run id: call catchup progress from inside a job that catchup runs", quotedValue(v)))
			}
			if fd, err := strconv.Atoi(os.Getenv(catchup.EnvProgressFD)); err == nil {
				err := catchup.SendProgress(fd, catchup.ProgressReport{RunID: id, Percent: pct, Note: note})
				if !errors.Is(err, catchup.ErrNoProgressChannel) {
					if errors.Is(err, store.ErrNotFound) {
						return failure(fmt.Errorf("run %d is not running", id))
					}
					return failure(err)
				}
			}
			st, _, err := openExistingLedger(c.Context(), g, false)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.SetProgress(c.Context(), id, pct, note); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return failure(fmt.Errorf("run %d is not running in this ledger", id))
				}
				return failure(err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&note, "note", "", "a checkpoint to resume from (kept until the next note)")
	return c
}
