package catchup

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"

	"github.com/catchup/catchup/store"
)

// historyOf is History with a status filter (f.Status): the f.Limit newest
// runs that read with that status, as history shows them unfiltered. The
// ledger's filter alone would miss some and keep others: a note changes
// the status of a run the ledger holds running or interrupted (to its
// noted outcome), and a dead running record reads interrupted. So the
// runs that can read otherwise (changeableRuns: every running one, each
// interrupted one with a note) are read apart, each kept when it reads
// with the status; of the others, the ledger's own filter is exact, and
// it is asked for f.Limit more than the changeable runs it holds with the
// status, so that f.Limit of the others are there when the ledger has
// them. The two are merged newest first and cut to f.Limit.
func historyOf(ctx context.Context, st store.Store, f store.HistoryFilter,
	running []store.Run, stale map[int64]bool, notes *pendingNotes) ([]store.Run, error) {
	changeable, err := changeableRuns(ctx, st, f, running, notes)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]store.Run, len(changeable))
	held := 0
	for _, r := range changeable {
		byID[r.ID] = r
		if r.Status == f.Status {
			held++
		}
	}
	limit := f.Limit
	f.Limit += held
	runs, err := st.History(ctx, f)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		byID[r.ID] = r // read twice (it changed between the reads): the ledger's later word
	}
	var out []store.Run
	for _, r := range byID {
		if r = readAsScanWould(r, stale, notes); r.Status == f.Status {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// changeableRuns is the runs of f (its task, since its start; any status)
// that may read with another status than the ledger holds: each running
// one (running, all of them), and each one held interrupted for which
// notes hold an outcome (read by id: notes are few).
func changeableRuns(ctx context.Context, st store.Store, f store.HistoryFilter, running []store.Run,
	notes *pendingNotes) ([]store.Run, error) {
	in := func(r store.Run) bool {
		return (f.Task == "" || r.Task == f.Task) && !r.StartedAt.Before(f.Since)
	}
	var out []store.Run
	seen := map[int64]bool{}
	for _, r := range running {
		seen[r.ID] = true
		if in(r) {
			out = append(out, r)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(notes.outcomes)) {
		e := notes.outcomes[id]
		if seen[id] || (f.Task != "" && e.Task != f.Task) {
			continue
		}
		r, err := st.Run(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // forgotten or pruned meanwhile
		}
		if err != nil {
			return nil, err
		}
		if r.Status == store.StatusInterrupted && sameClaim(r, e) && in(r) {
			r.StdoutTail, r.StderrTail = nil, nil // as the ledger's history rows hold it
			out = append(out, r)
		}
	}
	return out, nil
}

// filterNotes is the notes history reads runs with: this host's and, run
// by root, those of the users whose crontab lines registered the task
// (task != "") or any task, as root's other readers count them
// (readUsersNotes). Unlike runsNotes (show's), they are read before the
// runs: a noted run may be one the ledger's filter leaves out, and a
// noted fire is a run the ledger does not hold yet (withNotedFires).
func filterNotes(ctx context.Context, st store.Store, m Machine, task string) (*pendingNotes, error) {
	notes := readPendingNotes(m)
	if !readsUsersNotes(m) {
		return notes, nil
	}
	var tasks []store.Task
	if task != "" {
		var err error
		if tasks, err = tasksNamed(ctx, st, []string{task}); err != nil {
			return nil, err
		}
	} else {
		all, err := st.Tasks(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			tasks = append(tasks, s.Task)
		}
	}
	return readUsersNotes(m, nil, notes, tasks), nil
}
