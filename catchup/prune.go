package catchup

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// DefaultMaxAge is the catch-up window of a task that has none of its own
// (run --max-age) when scan and ls are given none (--max-age): missed slots
// older than this are recorded expired instead of replayed.
const DefaultMaxAge = 7 * 24 * time.Hour

// MinPruneAge is the youngest history prune may delete: scan's default
// window. Younger runs are what tell scan which slots ran; they are never
// pruned.
const MinPruneAge = DefaultMaxAge

// DefaultTolerance is scan's and ls's --tolerance default: a slot younger
// than this may still be fired by cron.
const DefaultTolerance = 5 * time.Minute

// PruneRequest is one checked `catchup prune`.
type PruneRequest struct {
	OlderThan time.Duration // at least MinPruneAge
	Keep      int           // newest runs kept per task; not negative
	DryRun    bool          // count, delete nothing
	// NotifyCmd is run (sh -c) for each task prune records expired slots
	// of, as scan's alert; "" runs the task's own --notify-cmd.
	NotifyCmd string

	beforeRecord func() // tests: called once the tasks are read, before anything is recorded
	beforePrune  func() // tests: called once the slots are recorded, before the ledger's prune
}

// Pruned is what Prune deleted (or, for a dry run, would delete), and the
// missed slots it recorded first.
type Pruned struct {
	Before   time.Time // the cut: runs that ended before it went
	Runs     int64
	Recorded []PruneRecorded // by task name; tasks with nothing to record are left out
	Left     []PruneLeft     // by task name: the tasks prune left whole, and why
	// Owed, by task name: the tasks whose runs from a failed slot still
	// owed on prune kept (their earlier ones pruned).
	Owed []PruneOwed
}

// Prune first pays the alerts this host's gone scans owe (payOwedAlerts),
// unless a dry run. It records, as scan would, the missed slots before the cut that scan
// would not replay (see recordBefore), then deletes the runs that ended more
// than req.OlderThan ago, except those the ledger always keeps (see
// store.Store.Prune). A slot whose successful run is pruned stays done. A
// task whose missed slots it cannot tell (see recordBefore) it leaves
// whole: its runs and its watermark (out.Left says which, and why); so too
// one retired (catchup forget) or purged since it read it: the ledger's
// prune refuses it in its transactions (store.PruneRequest.Of), and its
// watermark and runs stay as the forget left them.
func Prune(ctx context.Context, st store.Store, m Machine, req PruneRequest) (Pruned, error) {
	out := Pruned{Before: m.Now().Add(-req.OlderThan)}
	if !req.DryRun {
		// The alerts this host's gone scans owe stand for expired records
		// this prune may delete: paid first, as a scan pays them, or the
		// next scan would find nothing to alert (never lost to a prune).
		// Stopped while it paid one, it deletes nothing: the alert stays
		// owed with the records it stands for.
		if stopped := payOwedAlerts(ctx, st, m); stopped || ctx.Err() != nil {
			return out, errors.New("stopped before its prune: nothing deleted (catchup prune again)")
		}
	}
	read, err := recordBefore(ctx, st, m, out.Before, req)
	out.Recorded, out.Left, out.Owed = read.recorded, read.left, read.owed
	if err != nil {
		return out, err
	}
	preq := store.PruneRequest{Before: out.Before, Keep: req.Keep, DryRun: req.DryRun}
	if len(read.owed) > 0 {
		preq.Owed = map[string]time.Time{}
		for _, o := range read.owed {
			preq.Owed[o.Task] = o.Slot
		}
	}
	for _, l := range read.left {
		preq.Leave = append(preq.Leave, l.Task)
		delete(read.of, l.Task)
	}
	if !req.DryRun {
		// The tasks as read: one retired (or purged) since, after its
		// slots were recorded, is left as the forget left it.
		preq.Of = read.of
	}
	if req.DryRun {
		// The records a real prune adds first, counted among the kept;
		// the expired ones also among those LatestRan counts (none among
		// the runs that ran, whose newest Keep stay: store.PruneRequest).
		preq.Adding, preq.AddingRan = map[string]int{}, map[string]int{}
		preq.AddingLast, preq.AddingLastPaused = map[string]time.Time{}, map[string]time.Time{}
		for _, r := range read.recorded {
			preq.Adding[r.Task] = r.Expired + r.Paused
			preq.AddingRan[r.Task], preq.AddingLast[r.Task], preq.AddingLastPaused[r.Task] = r.Expired, r.Last, r.LastPaused
		}
	}
	if req.beforePrune != nil {
		req.beforePrune()
	}
	res, err := st.Prune(ctx, preq)
	out.Runs = res.Runs
	if len(res.Refused) > 0 {
		for _, task := range slices.Sorted(maps.Keys(res.Refused)) {
			why := prunedGoneLateWhy
			if errors.Is(res.Refused[task], store.ErrRetired) {
				why = prunedRetiredLateWhy
			}
			out.Left = append(out.Left, PruneLeft{Task: task, Why: why})
			out.Owed = slices.DeleteFunc(out.Owed, func(o PruneOwed) bool { return o.Task == task })
			read.paused = slices.DeleteFunc(read.paused, func(t store.Task) bool { return t.Name == task })
		}
		slices.SortStableFunc(out.Left, func(a, b PruneLeft) int { return cmp.Compare(a.Task, b.Task) })
	}
	if err != nil || req.DryRun {
		return out, err
	}
	for _, t := range read.paused {
		// A resume --replay-paused that committed meanwhile gets back the
		// slots of the pause the moved watermark passed, as after a scan.
		if err := keepResumedPause(context.WithoutCancel(ctx), st, t); err != nil {
			return out, err
		}
	}
	return out, nil
}
