package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// A fire that read its task from the ledger and then could not record its
// claim (a shared ledger's tables dropped, a SQLite file deleted under a
// daemon) ran nothing and noted so, saying the next scan replays its slot.
// Its note carries no registration (noteRegistration). When the ledger is
// re-made empty, the task is registered anew (a daemon's start, the next
// fire) after those slots: recorded, the notes stand before the task's
// registration, which no reader counts missed and no scan replays. The
// import says so, once per task, with the backfill that runs them. It
// does not backdate the task: the slots between that ran on the lost
// ledger, whose records went with it, would replay.

// notedBefore is what the import says of such notes: one line per task.
func notedBefore(ctx context.Context, st store.Store, runs []store.Run) ([]string, error) {
	type span struct {
		n           int
		first, last time.Time
		registered  time.Time
	}
	var order []string
	spans := map[string]*span{}
	tasks := map[string]*store.Task{}
	for _, r := range runs {
		if r.Status != store.StatusSkipped || r.Slot.IsZero() || r.Reason == store.ReasonByHand {
			continue
		}
		t, seen := tasks[r.Task]
		if !seen {
			got, err := st.Task(ctx, r.Task)
			switch {
			case errors.Is(err, store.ErrNotFound):
				// Its fire read it from the ledger (a slot, no
				// registration): a ledger re-made since, whose next
				// registration of it comes after the note.
				t = &store.Task{Name: r.Task}
			case err != nil:
				return nil, err
			default:
				t = &got
			}
			tasks[r.Task] = t
		}
		if !t.RetiredAt.IsZero() || (!t.RegisteredAt.IsZero() && !t.RegisteredAt.After(r.Slot)) {
			continue
		}
		s := spans[r.Task]
		if s == nil {
			s = &span{first: r.Slot, last: r.Slot, registered: t.RegisteredAt}
			spans[r.Task] = s
			order = append(order, r.Task)
		}
		s.n++
		if r.Slot.Before(s.first) {
			s.first = r.Slot
		}
		if r.Slot.After(s.last) {
			s.last = r.Slot
		}
	}
	var out []string
	for _, name := range order {
		s := spans[name]
		from, to := s.first.UTC().Format(time.RFC3339), s.last.UTC().Format(time.RFC3339)
		reg, yet, once := " at "+s.registered.UTC().Format(time.RFC3339), "", ""
		if s.registered.IsZero() { // the ledger does not know the task yet: its next fire registers it
			reg, yet, once = "", " (it does not know the task yet)", ", once a fire has registered it again"
		}
		out = append(out, fmt.Sprintf("task %s: %d noted %s that ran nothing (slots %s to %s) came before its registration"+
			"%s, on a ledger re-made since they were noted%s: their slots are neither missed nor replayed; to run "+
			"those that did not run on the lost ledger: catchup backfill --task %s --from %s --to %s%s",
			name, s.n, plural(s.n, "fire", "fires"), from, to, reg, yet, name, from, to, once))
	}
	return out, nil
}
