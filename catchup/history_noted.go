package catchup

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// Noted reports whether run r is a fire that reached no ledger, known from
// this host's notes alone (a reader's record of it, notedRunBase): it has
// no id yet, the next scan records it.
func Noted(r store.Run) bool { return r.ID >= notedRunBase }

// withNotedFires puts the records the next scan makes of the fire notes
// of f (its task, or every task; started within f.Since; of f.Status when
// given) above runs, history's newest first: that scan records them after
// every record the ledger holds, in the notes' order; an outcome note (a
// moved one: a ledger file replaced while its run ran; or one whose claim
// a failing disk lost) is such a fire unless the ledger holds its claim,
// whose outcome it is. It keeps f.Limit
// runs. Each note's slot, when it names none, is the one its task's
// registration gives it (noteSlot), as ls and explain read it.
func withNotedFires(ctx context.Context, st store.Store, lines *crontabs, runs []store.Run, notes *pendingNotes, f store.HistoryFilter) ([]store.Run, error) {
	// The fires, then the outcome notes that are not among them (an
	// outcome note is a fire only when the ledger lacks its claim).
	all := slices.Clone(notes.fires)
	for _, id := range slices.Sorted(maps.Keys(notes.outcomes)) {
		if e := notes.outcomes[id]; !e.Moved {
			all = append(all, e)
		}
	}
	var names []string
	for _, e := range all {
		if f.Task == "" || e.Task == f.Task {
			names = append(names, e.Task)
		}
	}
	if len(names) == 0 {
		return runs, nil
	}
	tasks, err := tasksNamed(ctx, st, names)
	if err != nil {
		return nil, err
	}
	var noted []store.Run
	for k := len(all) - 1; k >= 0; k-- {
		e := all[k]
		if f.Task != "" && e.Task != f.Task {
			continue
		}
		if e.RunID != 0 {
			// The outcome of a claim the ledger holds (history reads it
			// on that run) or, else, a fire (recordOutcomes).
			c, err := st.Run(ctx, e.RunID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			if err == nil && sameClaim(c, e) {
				continue
			}
		}
		e.RunID = 0
		r := noteRun(e, func(e spoolEntry) time.Time { return registeredSlot(lines, tasks, e) })
		r.ID = notedRunBase + int64(k)
		if r.StartedAt.Before(f.Since) || (f.Status != "" && r.Status != f.Status) {
			continue
		}
		noted = append(noted, r)
	}
	out := append(noted, runs...)
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// registeredSlot is the slot slotless fire note e stands for under its
// task's registration among tasks (noteSlot); none when the ledger holds
// no such task or its schedule cannot be read (by root, as its task's
// user: readerSchedule).
func registeredSlot(lines *crontabs, tasks []store.Task, e spoolEntry) time.Time {
	for i := range tasks {
		if tasks[i].Name != e.Task {
			continue
		}
		s, err := lines.readerSchedule(tasks[i])
		if err != nil {
			return time.Time{}
		}
		return noteSlot(s, knownFrom(&tasks[i], s), e, DefaultTolerance)
	}
	return time.Time{}
}
