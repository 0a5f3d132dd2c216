package catchup

import (
	"context"
	"fmt"
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
}

// Pruned is what Prune deleted (or, for a dry run, would delete).
type Pruned struct {
	Before time.Time // the cut: runs that ended before it went
	Runs   int64
}

// Prune deletes the runs that ended more than req.OlderThan ago, except
// those the ledger always keeps (see store.Store.Prune). A slot whose
// successful run is pruned stays done.
func Prune(ctx context.Context, st store.Store, m Machine, req PruneRequest) (Pruned, error) {
	before := m.Now().Add(-req.OlderThan)
	if err := missedBefore(ctx, st, m, before); err != nil {
		return Pruned{Before: before}, err
	}
	res, err := st.Prune(ctx, store.PruneRequest{Before: before, Keep: req.Keep, DryRun: req.DryRun})
	return Pruned{Before: before, Runs: res.Runs}, err
}

// missedBefore refuses a prune that would hide missed slots scan would
// still replay: the ledger moves every watermark up to the cut (the slots
// before it lose the runs that settled them), so a slot before the cut and
// within its task's catch-up window that no scan has replayed (a task whose
// window is longer than --older-than, a host whose scan has not run) would
// vanish silently.
func missedBefore(ctx context.Context, st store.Store, m Machine, cut time.Time) error {
	tasks, err := List(ctx, st, m, MissedRule{Tolerance: DefaultTolerance}) // each task's own window
	if err != nil {
		return err
	}
	for _, ts := range tasks {
		// Slots older than the window (the first Expiring) scan would only
		// record expired; those within it, it would replay.
		if inWindow := ts.Missed[ts.Expiring:]; len(inWindow) > 0 && inWindow[0].Before(cut) {
			return fmt.Errorf("task %s has missed slots before the cut (%s) that no scan has dealt with, which prune would hide: "+
				"run catchup scan first (it replays them or records them expired), or prune with a longer --older-than",
				ts.Task.Name, cut.UTC().Format(time.RFC3339))
		}
	}
	return nil
}
