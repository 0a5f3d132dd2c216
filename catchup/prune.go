package catchup

import (
	"context"
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
	res, err := st.Prune(ctx, store.PruneRequest{Before: before, Keep: req.Keep, DryRun: req.DryRun})
	return Pruned{Before: before, Runs: res.Runs}, err
}
