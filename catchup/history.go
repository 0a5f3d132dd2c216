package catchup

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// deadNote is the error a reader shows on a running record whose process
// is known to be gone, until a scan records why.
const deadNote = notRecordedYet + processGone + "; the next scan records it interrupted"

// notRecordedYet begins the error a reader shows on a run found dead that
// no scan has recorded yet (deadNote, leaseNote).
const notRecordedYet = "not recorded yet: "

// leaseNote is deadNote as a reader can tell it of r (staleWhy): another
// host's process cannot be seen from here, its lease ran out; a run of an
// earlier boot of this host died with it.
func leaseNote(st store.Store, m Machine, r store.Run) store.Run {
	if r.Error == deadNote {
		if why, _ := staleWhy(st, m, r); why != processGone {
			r.Error = notRecordedYet + why + "; the next scan records it interrupted"
		}
	}
	return r
}

// notedNote is the error a reader shows on a run whose outcome is noted on
// this host (the ledger failed to take it), until a scan records it.
const notedNote = "outcome not recorded yet: noted on this host; the next scan records it"

// History is the ledger's runs for `catchup history`, as ls reads them: a
// run whose outcome this host noted reads as that outcome, and a running
// record whose process is known to be gone otherwise reads interrupted (as
// the next scan records them). A status filter selects runs by the status
// they read with (historyOf), so --status running leaves a dead one out,
// --status interrupted lists it, and --status failed lists a run whose
// noted outcome is failed; a fire noted without any record is the newest
// run (withNotedFires, Noted); f.Limit counts the runs it keeps. A task the
// ledger does not hold is an error (UnknownTask). The ledger is not
// written.
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
	notes, err := filterNotes(ctx, st, m, f.Task)
	if err != nil {
		return nil, err
	}
	var out []store.Run
	if f.Status != "" {
		out, err = historyOf(ctx, st, f, running, stale, notes)
	} else {
		out, err = historyAll(ctx, st, f, stale, notes)
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = withDeadEnd(st, m, out[i], stale)
	}
	if out, err = withNotedFires(ctx, st, newCrontabs(m), out, notes, f); err != nil {
		return nil, err
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

// historyAll is History without a status filter: the ledger's f.Limit
// newest runs, each read as the next scan leaves it.
func historyAll(ctx context.Context, st store.Store, f store.HistoryFilter, stale map[int64]bool, notes *pendingNotes) ([]store.Run, error) {
	runs, err := st.History(ctx, f)
	if err != nil {
		return nil, err
	}
	for i, r := range runs {
		runs[i] = readAsScanWould(r, stale, notes)
	}
	return runs, nil
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
	notes, err := runsNotes(ctx, st, m, []store.Run{r})
	if err != nil {
		return r, err
	}
	return leaseNote(st, m, withDeadEnd(st, m, readAsScanWould(r, stale, notes), stale)), nil
}

// withDeadEnd gives run d, read interrupted because its process is known
// to be gone (stale), the end the next scan records for it (deadBy): a
// bound, as explain dates it and metrics counts it, not no end at all.
func withDeadEnd(st store.Store, m Machine, d store.Run, stale map[int64]bool) store.Run {
	if stale[d.ID] && d.Status == store.StatusInterrupted && d.EndedAt.IsZero() {
		d.EndedAt = deadBy(st, m, d)
	}
	return d
}

// runsNotes is the notes that show reads runs with (history's:
// filterNotes): this host's (readPendingNotes)
// and, run by root, those of the users whose crontab lines the runs a
// note can change are of (running or taken for interrupted:
// pendingNotes.noted), as root's other readers count them
// (readUsersNotes: the same rule and trust; a refused notes file is said
// once). So root reads a run of a user's line as that user does. Without
// such a run it reads no task.
func runsNotes(ctx context.Context, st store.Store, m Machine, runs []store.Run) (*pendingNotes, error) {
	notes := readPendingNotes(m)
	if !readsUsersNotes(m) {
		return notes, nil
	}
	var names []string
	for _, r := range runs {
		if (r.Status == store.StatusRunning || r.Status == store.StatusInterrupted) && !slices.Contains(names, r.Task) {
			names = append(names, r.Task)
		}
	}
	tasks, err := tasksNamed(ctx, st, names)
	if err != nil {
		return nil, err
	}
	return readUsersNotes(m, nil, notes, tasks), nil
}

// tasksNamed reads the tasks of names the ledger holds (one read for one
// name, else every task); a name it does not hold (forgotten meanwhile) is
// left out.
func tasksNamed(ctx context.Context, st store.Store, names []string) ([]store.Task, error) {
	switch len(names) {
	case 0:
		return nil, nil
	case 1:
		t, err := st.Task(ctx, names[0])
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []store.Task{t}, nil
	}
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var tasks []store.Task
	for _, s := range all {
		if want[s.Task.Name] {
			tasks = append(tasks, s.Task)
		}
	}
	return tasks, nil
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
// reads the task, or every task when runs are of several. Root reads
// another user's task's zone file as that user (readerZone), as ls does.
func RunZones(ctx context.Context, st store.Store, m Machine, runs []store.Run) (map[string]*time.Location, error) {
	zones := map[string]*time.Location{}
	var names []string
	for _, r := range runs {
		if _, ok := zones[r.Task]; !ok {
			zones[r.Task], names = time.UTC, append(names, r.Task) // forgotten meanwhile: UTC, as ls would say
		}
	}
	tasks, err := tasksNamed(ctx, st, names)
	if err != nil {
		return nil, err
	}
	lines := newCrontabs(m)
	for _, t := range tasks {
		zones[t.Name] = lines.readerZone(t)
	}
	return zones, nil
}
