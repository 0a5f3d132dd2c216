package store

import (
	"context"
	"time"
)

// Lifecycle retires and pauses tasks (catchup forget, pause and resume, and
// scan retiring a task whose crontab line is gone).
type Lifecycle interface {
	// Forget retires task at at: scan no longer looks at it and its slots
	// are no longer missed, but its runs stay; its pause is cleared. The
	// next UpsertTask of the task registers it anew: its registration and
	// watermark are the new ones, not moved back to the old. With purge,
	// the task, every run of it and its done slots are deleted instead;
	// the number of runs deleted is returned. An unknown task is an error
	// wrapping ErrNotFound.
	Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error)
	// SetPause records the task's pause: from when (zero: no pause) until
	// when (zero: until the next SetPause). An unknown task is an error
	// wrapping ErrNotFound.
	SetPause(ctx context.Context, task string, from, until time.Time) error
	// UnsettlePaused marks the runs of task with status paused whose slot
	// is at or after from with ReasonReplayPaused (they no longer settle
	// their slot, and stay in the history), lowers the task's watermark to
	// one second before from if it is later, and ends the task's pause (no
	// pause at all), in one transaction: those slots are missed again. It
	// returns the number of runs it marked (not those marked before). The
	// watermark never goes below the task's prune floor (the latest slot of
	// a run prune deleted): when that floor is at or after from, the slots
	// from from through it stay as they are, their paused runs unmarked,
	// and floor is returned (zero otherwise).
	UnsettlePaused(ctx context.Context, task string, from time.Time) (n int64, floor time.Time, err error)
	// Backdate moves the registration of task back to from when it is
	// later, and with it the watermark to one second before from when it
	// is at or after from, in one statement: the slots from from on are
	// looked at again (a first fire noted on a host while the ledger could
	// not be reached, recorded after a later fire registered the task). It
	// reports whether it moved anything; a task registered at or before
	// from, or unknown, is left as it is (false).
	Backdate(ctx context.Context, task string, from time.Time) (bool, error)
	// LastFire returns when the latest run of task with trigger schedule
	// (a fire of its own, not a replay) started; zero when there is none.
	LastFire(ctx context.Context, task string) (time.Time, error)
	// SetStarted records that running run id's command starts at at (its
	// heartbeat too): a retry is claimed when its delay begins, and starts
	// when the delay is over. It clears the run's retry delay mark (RetryStarts).
	// It reports whether the run was still running: false when it was taken
	// for dead meanwhile (interrupted by another host or a scan), in the same
	// statement, so that a retry never starts a run its slot's replay took.
	SetStarted(ctx context.Context, id int64, at time.Time) (running bool, err error)
}
