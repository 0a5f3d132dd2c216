package catchup

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
)

// deadNote is the error a reader shows on a running record whose process
// is known to be gone, until a scan records why.
const deadNote = "not recorded yet: its process is gone; the next scan records it interrupted"

// notedNote is the error a reader shows on a run whose outcome is noted on
// this host (the ledger failed to take it), until a scan records it.
const notedNote = "outcome not recorded yet: noted on this host; the next scan records it"

// History is the ledger's runs for `catchup history`, as ls reads them: a
// run whose outcome this host noted reads as that outcome, and a running
// record whose process is known to be gone otherwise reads interrupted (as
// the next scan records them), so --status running leaves it out and
// --status interrupted lists it. A task the ledger does not hold is an
// error (UnknownTask). The ledger is not written.
func History(ctx context.Context, st store.Store, m Machine, f store.HistoryFilter) ([]store.Run, error) {
	running, err := st.Running(ctx)
	if err != nil {
		return nil, err
	}
	stale, err := staleAmong(ctx, st, m, running, false)
	if err != nil {
		return nil, err
	}
	if f.Limit <= 0 {
		f.Limit = 20
	}
	limit := f.Limit
	if f.Status == store.StatusRunning {
		f.Limit += len(stale) // the dead ones are dropped below
	}
	runs, err := st.History(ctx, f)
	if err != nil {
		return nil, err
	}
	if f.Status == store.StatusInterrupted {
		for _, r := range running {
			if stale[r.ID] && (f.Task == "" || r.Task == f.Task) && !r.StartedAt.Before(f.Since) {
				runs = append(runs, r)
			}
		}
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	}
	notes := readPendingNotes(m)
	out := runs[:0]
	for _, r := range runs {
		r = readAsScanWould(r, stale, notes)
		if f.Status == "" || r.Status == f.Status {
			out = append(out, r)
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	if len(out) == 0 && f.Task != "" {
		// Nothing to show: of a task the ledger holds, or of none.
		if _, err := st.Task(ctx, f.Task); errors.Is(err, store.ErrNotFound) {
			return nil, UnknownTask(f.Task)
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadRun is run r as ls reads it (see History), for `catchup show`.
func ReadRun(ctx context.Context, st store.Store, m Machine, r store.Run) (store.Run, error) {
	if r.Status != store.StatusRunning && r.Status != store.StatusInterrupted {
		return r, nil
	}
	var stale map[int64]bool
	if r.Status == store.StatusRunning {
		var err error
		if stale, err = staleAmong(ctx, st, m, []store.Run{r}, false); err != nil {
			return r, err
		}
	}
	return readAsScanWould(r, stale, readPendingNotes(m)), nil
}

// readAsScanWould is one record as the next scan leaves it: with its noted
// outcome, else deadAsInterrupted; with a word of why in its error.
func readAsScanWould(r store.Run, stale map[int64]bool, notes *pendingNotes) store.Run {
	if n := notes.noted(&r); n != &r {
		if n.Error == "" {
			n.Error = notedNote
		}
		return *n
	}
	d := *deadAsInterrupted(&r, stale)
	if d.Status != r.Status && d.Error == "" {
		d.Error = deadNote
	}
	return d
}

// RunZones is, for each task of runs, the zone ls shows its slots in
// (TaskStatus.Zone: its registered zone, UTC when that is unknown), for
// history's table and show: an operator reads a slot alike in each. It
// reads the task, or every task when runs are of several.
func RunZones(ctx context.Context, st store.Store, runs []store.Run) (map[string]*time.Location, error) {
	zones := map[string]*time.Location{}
	var names []string
	for _, r := range runs {
		if _, ok := zones[r.Task]; !ok {
			zones[r.Task], names = time.UTC, append(names, r.Task)
		}
	}
	switch len(names) {
	case 0:
		return zones, nil
	case 1:
		t, err := st.Task(ctx, names[0])
		if errors.Is(err, store.ErrNotFound) {
			return zones, nil // forgotten meanwhile: UTC, as ls would say
		}
		if err != nil {
			return nil, err
		}
		zones[t.Name] = zoneOf(t, nil)
		return zones, nil
	}
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if _, ok := zones[s.Task.Name]; ok {
			zones[s.Task.Name] = zoneOf(s.Task, nil)
		}
	}
	return zones, nil
}
