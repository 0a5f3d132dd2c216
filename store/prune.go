package store

import "time"

// PruneRequest selects the runs Prune deletes: those that ended before
// Before, except a running run, the latest run of each task, and the newest
// Keep runs of each task, counted as TaskSummary.Latest counts them, on
// their own as LatestRan does (paused records never push those out), and
// on their own among the runs that ran, not expired either (the expired
// records of a long outage, which prune itself records, never push out
// the runs that ran before it).
type PruneRequest struct {
	Before time.Time
	Keep   int  // newest runs kept per task; <= 1 keeps only the latest
	DryRun bool // count what would be deleted, delete nothing
	// Adding, for a dry run only: per task, how many finished records the
	// caller adds before the real prune (catchup's expired and paused
	// records). Newer than every run, they count among the Keep newest
	// (but not among the runs that ran).
	Adding map[string]int
	// AddingRan, for a dry run only: per task, how many of Adding
	// LatestRan counts (the expired records; the paused ones it does not).
	AddingRan map[string]int
	// AddingLast, for a dry run only: per task, the latest slot of the
	// expired records among Adding, added after the paused ones (each in
	// slot order): whether one of them becomes the run ls shows, which
	// prune keeps, in place of a run of the ledger.
	AddingLast map[string]time.Time
	// AddingLastPaused, for a dry run only: per task, the latest slot of
	// the paused records among Adding.
	AddingLastPaused map[string]time.Time
	// Leave names the tasks Prune leaves whole: their runs stay and their
	// watermark does not move (catchup could not tell which of their slots
	// before the cut were missed: a schedule that does not parse, a clock
	// behind the ledger).
	Leave []string
	// Owed, per task, is the earliest slot of the task still owed a run
	// (a failed slot within its catch-up window, that scan --retry-failed
	// and backfill --only failed still run): of such a task, Prune deletes
	// only the runs of earlier slots (a run without a slot: one that ended
	// before it), in a dry run's count too, and moves its watermark no
	// further than the second before it, so that the failures from it on
	// stay owed while those before it go.
	Owed map[string]time.Time
	// Batch is how many runs each of Prune's transactions deletes at most
	// (0: the ledger's default), so that a fire waits for one batch, never
	// for the whole prune.
	Batch int
	// Batched, when set, is called after each batch is committed, with
	// the runs deleted so far; no lock is held while it runs.
	Batched func(deleted int64)
	// Of, for a real prune, is each task as its caller read it (store.Of):
	// each of Prune's transactions that writes a task of Of (the
	// watermarks', each batch of its runs) reads its row and refuses it
	// no longer so, as AddRunsOf does: purged since, or registered again
	// (ErrGone); given Live, retired since (ErrRetired, `catchup forget`).
	// A task so refused is left from then on, its watermark and the runs
	// left of it (PruneResult.Refused). A task not in Of is not checked.
	Of map[string]Of
}

// PruneBatch is the default of PruneRequest.Batch: a few thousand runs,
// some tens of milliseconds on a local ledger.
const PruneBatch = 2000

// PruneResult is what Prune deleted (or, for a dry run, would delete).
type PruneResult struct {
	Runs int64
	// Refused: the tasks of PruneRequest.Of a transaction refused, by
	// name, each with why (wrapping ErrGone or ErrRetired).
	Refused map[string]error
}

// PrunedSlot is a slot whose succeeded run was pruned: it stays done. A
// SQLite ledger exports them and a PostgreSQL one imports them, for
// `catchup migrate`.
type PrunedSlot struct {
	Task string
	Slot time.Time
}
