package catchup

import (
	"context"
	"errors"
	"fmt"

	"github.com/catchup/catchup/store"
)

// forgottenSince reads task t again as a scan comes to it, after the
// replays of the tasks before it: `catchup forget --purge` may have deleted
// it since the scan read the ledger's tasks, and a fire may have registered
// it again since, as a new task from that fire. Either way the task the
// scan read is gone: scanning it would find none of its runs, replay every
// slot since its old registration (those that ran too) and write the task
// back. The warning says so; "" when the task is as the scan read it.
func forgottenSince(ctx context.Context, st store.Store, t store.Task) (string, error) {
	cur, err := st.Task(ctx, t.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Sprintf("task %s was forgotten since this scan read it (catchup forget); not scanning it", t.Name), nil
	case err != nil:
		return "", err
	case cur.RegisteredAt.After(t.RegisteredAt):
		return fmt.Sprintf("task %s was forgotten since this scan read it (catchup forget); not scanning it: "+
			"it is registered again as of %s, and the next scan looks at it from then", t.Name, rfc(cur.RegisteredAt)), nil
	}
	return "", nil
}
