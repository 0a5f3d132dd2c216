package catchup

import (
	"context"
	"errors"
	"fmt"

	"github.com/catchup/catchup/store"
)

// lineOf is the task a scan's registration of a crontab line writes, as
// the scan read it (store.Store.UpsertTaskOf): read is the scan's reading
// of the task (nil: a fire's registration of its line, which checks
// nothing: a fire registers a retired task anew; a zero Name: the scan
// reads it in the registration, as cur); cur is the registration's own
// reading, found when the ledger holds the task. A task the scan read
// live that cur finds retired, purged or registered anew since is
// refused at once (refused: store.ErrRetired, store.ErrGone); a task new
// or retired when the scan read it is registered anew, unchecked.
func lineOf(read *store.Task, cur store.Task, found bool) (of store.Of, refused error) {
	switch {
	case read == nil:
		return store.Of{}, nil
	case read.Name == "":
		if !found || !cur.RetiredAt.IsZero() {
			return store.Of{}, nil // registered anew, as of now
		}
		return store.OfLive(cur.RegisteredAt), nil
	}
	of = store.OfLive(read.RegisteredAt)
	if !found {
		return of, store.ErrGone
	}
	return of, of.Refuses(cur.RegisteredAt, cur.RetiredAt)
}

// registerLineOf writes registration t of a crontab line's task as of (a
// scan's: lineOf), or unchecked for a zero of. A task retired or purged
// since the scan read it is not written (sinceRead says why).
func registerLineOf(ctx context.Context, st store.Store, of store.Of, t store.Task) error {
	if of.Registered.IsZero() {
		return st.UpsertTask(ctx, t)
	}
	if err := st.UpsertTaskOf(ctx, of, t); err != nil {
		return sinceRead(t.Name, err)
	}
	return nil
}

// lineSinceRead is a registration of a crontab line refused because its
// task was retired (`catchup forget`) or purged since the scan read it:
// the task is left as forget left it, and not scanned; the next scan
// registers the line anew, as of then, as it does any retired task's.
type lineSinceRead struct {
	msg string
	err error
}

func (e *lineSinceRead) Error() string { return e.msg }
func (e *lineSinceRead) Unwrap() error { return e.err }

// sinceRead is err (store.ErrRetired, store.ErrGone) as the scan's
// warning for task's line; any other error as it is.
func sinceRead(task string, err error) error {
	switch {
	case errors.Is(err, store.ErrRetired):
		return &lineSinceRead{err: err, msg: fmt.Sprintf("task %s was retired since this scan read it (catchup forget, or its line gone): "+
			"its line is not registered, nor the task scanned (the next scan registers the line anew)", task)}
	case errors.Is(err, store.ErrGone):
		return &lineSinceRead{err: err, msg: forgottenWarning(task) + ": its line is not registered (the next scan registers it anew)"}
	}
	return err
}
