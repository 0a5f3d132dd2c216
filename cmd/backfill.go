package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// backfillFlags are backfill's flags; request checks them.
type backfillFlags struct {
	from, to string
	force    bool // run the slots of a lost -wal's window too (refuseLostWindow)
	req      catchup.BackfillRequest
}

func newBackfillCmd(g *globals) *cobra.Command {
	var bf backfillFlags
	c := &cobra.Command{
		Use:   "backfill --task NAME --from TIME --to TIME [flags]",
		Short: "Run a task's slots of a past range through the run lifecycle",
		Long: `Run every slot of the task's schedule from --from to --to (both included, RFC
3339) with CATCHUP_TRIGGER=backfill and the slot's CATCHUP_SLOT and
CATCHUP_PREV_SLOT, each through the same lock, claim, run and record path as
run. Slots already done are skipped unless --only all. Backfill is explicit: it
runs slots before the task's registration and older than scan's --max-age too.
The slots of the task's pause (catchup pause) are skipped, as scan skips them,
unless --include-paused; a pause that begins while backfill runs the task stops
it (its later slots are left, not run); a retired task (catchup forget) is
refused. A range in the future is refused, and so is one that holds more than
--max-slots slots of a task (default 10000), before anything runs: a typo in
--from would otherwise run millions of slots.

Exit status: 0 every slot ran or was skipped; 1 a slot failed, or a task's
working directory was refused (its slots left, not run: fix it and backfill
again); 2 error; 128+N stopped by signal N: the slot it cut short is reported
interrupted, those it did not reach left, and a backfill again runs them
(stopped while planning: nothing ran).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBackfill(c, g, bf) },
	}
	f := c.Flags()
	f.StringArrayVar(&bf.req.Tasks, "task", nil, "the task (repeatable: several tasks run in parallel up to --concurrency)")
	f.StringVar(&bf.from, "from", "", "first instant of the range (RFC 3339)")
	f.StringVar(&bf.to, "to", "", "last instant of the range (RFC 3339), not in the future")
	f.StringVar(&bf.req.Only, "only", "missing", "which slots: missing (no outcome yet; expired ones too: they never ran), failed (latest attempt failed or timed out), all (run again even if done)")
	f.StringVar(&bf.req.Order, "order", "oldest", "oldest|newest: the order of a task's slots")
	f.BoolVar(&bf.req.DryRun, "dry-run", false, "print the slots that would run and change nothing")
	f.BoolVar(&bf.force, "force", false, "run the slots of a time whose records the ledger lost with its -wal (its -wal-lost mark stands) too: they may have run")
	f.BoolVar(&bf.req.Paused, "include-paused", false, "run the slots of the task's pause too (catchup pause), also those a fire recorded paused")
	intVar(f, &bf.req.Concurrency, "concurrency", 1, "tasks at once (a task's own slots always run one at a time)")
	intVar(f, &bf.req.MaxSlots, "max-slots", catchup.DefaultBackfillMaxSlots, "refuse a range that holds more than N slots of a task (a typo in --from), before anything runs")
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	return c
}

// errTaskRequired refuses a backfill with no --task.
var errTaskRequired = errors.New("--task is required: the task whose slots to run (catchup ls lists them)")

// request checks the flags against now.
func (bf backfillFlags) request(now time.Time) (catchup.BackfillRequest, error) {
	req := bf.req
	req.Tasks = distinct(req.Tasks) // a task named twice is backfilled once, as scan scans it once
	if len(req.Tasks) == 0 {
		return req, errTaskRequired
	}
	var err error
	if req.From, err = parseTime(bf.from); err != nil {
		return req, timeError("--from", bf.from, err, "want RFC 3339, like 2026-11-01T00:00:00Z")
	}
	if req.To, err = parseTime(bf.to); err != nil {
		return req, timeError("--to", bf.to, err, "want RFC 3339, like 2026-11-08T00:00:00Z")
	}
	switch {
	case req.To.Before(req.From):
		return req, fmt.Errorf("--to %s is before --from %s%s", bf.to, bf.from, inUTC(req.To, req.From))
	case req.To.After(now):
		return req, fmt.Errorf("--to %s is in the future: backfill runs only slots that have come (now is %s)",
			bf.to, now.UTC().Format(time.RFC3339))
	case req.Only != "missing" && req.Only != "failed" && req.Only != "all":
		return req, fmt.Errorf("invalid --only %s: use missing, failed or all", quotedValue(req.Only))
	case req.Order != "oldest" && req.Order != "newest":
		return req, fmt.Errorf("invalid --order %s: use oldest or newest", quotedValue(req.Order))
	case req.Concurrency < 1:
		return req, fmt.Errorf("--concurrency must be at least 1")
	case req.MaxSlots < 1:
		return req, fmt.Errorf("--max-slots must be at least 1")
	}
	// Slots are whole seconds: the range's first is the first whole second
	// at or after --from (a slot before a --from with a fraction is not in it).
	if f := req.From.Truncate(time.Second); f.Before(req.From) {
		req.From = f.Add(time.Second)
	}
	return req, nil
}

func runBackfill(c *cobra.Command, g *globals, bf backfillFlags) error {
	if slices.Contains(bf.req.Tasks, "") {
		return usageErr(c, fmt.Errorf("empty --task: name a task (catchup ls lists them)"))
	}
	switch { // the task first: "--from is required" to a bare backfill left it unsaid
	case len(bf.req.Tasks) == 0:
		return usageErr(c, errTaskRequired)
	case !c.Flags().Changed("from"): // not given: "invalid --from \"\"" would read as an empty value
		return usageErr(c, errors.New("--from is required: the first slot to run, like 2026-11-01T00:00:00Z"))
	case !c.Flags().Changed("to"):
		return usageErr(c, errors.New("--to is required: the last slot to run, like 2026-11-08T00:00:00Z"))
	}
	// The boot time too: each slot's claim records this host's boot, and a
	// boot recorded without it starts when first seen, blaming the slots it
	// covered before on the host being down (as run and scan read it).
	st, m, err := openExistingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	req, err := bf.request(m.Now())
	if err != nil {
		return usageErr(c, err)
	}
	catchup.WarnClockSkew(st, m)
	if !req.DryRun && !store.IsPostgres(m.DB) {
		if err := store.CheckPrivate(m.DB, m.UID); err != nil {
			return failure(fmt.Errorf("refusing to run: %w", err))
		}
	}
	if err := refuseLostWindow(st, m, req, bf.force); err != nil {
		return failure(err)
	}
	reps, err := catchup.Backfill(c.Context(), st, m, req)
	if errors.Is(err, catchup.ErrPlanStopped) {
		sig, ok := stoppedBy(c.Context())
		if !ok {
			sig = syscall.SIGTERM
		}
		return &exitStatus{code: 128 + int(sig), err: fmt.Errorf("backfill stopped by %s while planning: nothing ran; backfill again",
			signalName(sig))}
	}
	if err != nil {
		return failure(err)
	}
	if err := writeBackfill(c.OutOrStdout(), reps, req); err != nil {
		return failure(err)
	}
	if c.Context().Err() != nil {
		return backfillStopped(c.Context(), reps)
	}
	for _, r := range reps {
		if r.Failed > 0 || r.Refused > 0 {
			return &exitStatus{code: exitFound}
		}
	}
	return nil
}

// backfillStopped ends a backfill a signal cut short, after its report: one
// line on what it did not do, and 128+N as a shell reports a job killed by
// signal N (never 0: slots are left).
func backfillStopped(ctx context.Context, reps []catchup.TaskBackfill) error {
	sig, ok := stoppedBy(ctx)
	if !ok {
		sig = syscall.SIGTERM
	}
	cut, left := 0, 0
	for _, r := range reps {
		cut, left = cut+r.Interrupted, left+r.Left
	}
	what := "no slot was cut short"
	switch {
	case cut == 1:
		what = "the slot it cut short is recorded interrupted"
	case cut > 1:
		what = fmt.Sprintf("the %d slots it cut short are recorded interrupted", cut)
	}
	them := "them"
	if left == 1 {
		them = "it"
	}
	return &exitStatus{code: 128 + int(sig), err: fmt.Errorf("backfill stopped by %s: %s; %s left, not run; "+
		"backfill %s again", signalName(sig), what, counted(left, "slot", "slots"), them)}
}

// writeBackfill writes backfill's report to out through one buffer (a
// range can hold tens of thousands of slots: writeScanText).
func writeBackfill(out io.Writer, reps []catchup.TaskBackfill, req catchup.BackfillRequest) error {
	w := bufio.NewWriter(out)
	for _, r := range reps {
		for _, a := range r.Actions {
			line := fmt.Sprintf("  %s  %s", a.Slot.UTC().Format(time.RFC3339), a.Action)
			if a.Action == catchup.ActionFailed || a.Action == catchup.ActionWouldFail {
				line += fmt.Sprintf(", exit %d", a.ExitCode)
			}
			fmt.Fprintf(w, "%s%s\n", line, reasonSuffix(a.Reason))
		}
		verb, ran := "backfill", fmt.Sprintf("ran %d", r.Ran)
		if req.DryRun { // what would run, not the 0 a dry run ran
			verb, ran = "dry run: backfill", fmt.Sprintf("would run %d", countAction(slices.Values(r.Actions), catchup.ActionWouldRun))
		}
		fmt.Fprintf(w, "%s %s: %s from %s to %s: %s, failed %d, skipped %d%s\n", verb, printable(r.Task),
			counted(r.Slots, "slot", "slots"), req.From.UTC().Format(time.RFC3339), req.To.UTC().Format(time.RFC3339), ran, r.Failed, r.Skipped,
			countSuffix("interrupted", r.Interrupted)+countSuffix("left", r.Left))
	}
	return w.Flush()
}

// inUTC is " (FROM in UTC)" when to and from are written with different
// offsets, whose order then reads wrong (12:00Z is before 10:00-03:00);
// else "".
func inUTC(to, from time.Time) string {
	_, t := to.Zone()
	if _, f := from.Zone(); t == f {
		return ""
	}
	return " (" + from.UTC().Format(time.RFC3339) + ")"
}

// refuseLostWindow refuses a backfill whose range meets the window of
// records the ledger lost with its -wal while its mark stands: those slots
// may have run, their records lost, and backfill would run them again. A
// dry run is told, as is one given --force, which runs them anyway.
func refuseLostWindow(st store.Store, m catchup.Machine, req catchup.BackfillRequest, force bool) error {
	span, ok := store.LostWindow(st)
	if !ok || (!span.Until.IsZero() && req.From.After(span.Until)) || (!span.Since.IsZero() && req.To.Before(span.Since)) {
		return nil
	}
	why := fmt.Sprintf("ledger %s lost its records %s with its -wal (deleted or cut short while no catchup had it open): "+
		"the slots of that time may have run, and backfill would run them again", m.DB, span.Written())
	if force || req.DryRun {
		m.Notice("warning: %s; remove %s once the slots of that time are settled", why, span.Mark)
		return nil
	}
	return fmt.Errorf("refusing to backfill: %s; fix: backfill those that did not with --force (or a range outside that time), "+
		"then remove %s", why, span.Mark)
}
