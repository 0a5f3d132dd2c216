package catchup

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/catchup/catchup/store"
)

// Scan finds every missed slot of every scheduled task and replays it,
// oldest first, through the same lock-claim-execute-record path as run.
// Its ledger calls, its replays' too, are one session (store.Session).
func Scan(ctx context.Context, st store.Store, m Machine, req ScanRequest) (rep ScanReport, err error) {
	ctx = store.WithSession(ctx)
	if req.Replay != "" {
		if err := CheckPolicy(req.Replay); err != nil {
			return rep, err
		}
	}
	m.asUser = newAccessMemo()
	cts := newCrontabs(m)
	cts.tolerance = req.Tolerance
	defer func() {
		rep.Warnings = append(cts.warnings, rep.Warnings...)
		rep.RefusedCrontabs = cts.refused
		rep.CronBackups = len(cts.backups)
	}()
	entries, warnings, err := cts.discover(req.Crontabs)
	if err != nil {
		return rep, err
	}
	rep.Warnings = append(rep.Warnings, warnings...)
	rep.RefusedLines += len(warnings) // malformed catchup lines: never registered, never replayed
	replays := map[string]*shellReplay{}
	refused := map[string]bool{} // tasks whose line this scan refused, and said so
	held := map[string]bool{}    // edited lines left to their user (ownersNotesFirst) or to another scan's notes (errNotesHeld), said so
	if !req.DryRun {
		entries = newTasksFirst(ctx, st, m, entries) // an edited line records the notes: new lines before it
	}
	for _, e := range entries {
		sr, warning, err := registerEntry(ctx, st, m, e, req.Tolerance, req.DryRun, req.NotifyCmd, &store.Task{})
		if warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
		if sr != nil && sr.alertLeft != nil {
			sr.alertLeft()
		}
		if err != nil {
			if errors.Is(err, ErrLineRefused) {
				rep.RefusedLines++
				refused[e.Task] = true
			}
			held[e.Task] = errors.Is(err, errOwnersNotes) || errors.Is(err, errNotesHeld)
			rep.Warnings = append(rep.Warnings, err.Error())
			continue
		}
		replays[e.Task] = sr
	}
	var edited func(spoolEntry) bool // the notes of edited lines' own fires (editedLinesFires)
	if !req.DryRun {
		// The boot record is bookkeeping for the causes of later misses: a
		// ledger that cannot take it (read-only) still gets its scan.
		err := seeBoot(ctx, st, m)
		if err == nil && m.Answered != nil {
			m.Answered() // else the ledger still fails it (held locked past the busy timeout)
		}
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("cannot record this boot: %v", err))
		} else {
			rep.BootRecorded = m.BootID != ""
		}
		// An edited line this scan re-reads (lineReplay) records its own
		// fires' notes once it registers the edit (registerEntry).
		edited = cts.editedLinesFires(ctx, st, req.Tasks, replays)
		notes, fault, err := recordNotesOf(ctx, st, m, req.Tolerance, "this scan", notOf(edited))
		switch {
		case err != nil:
			return rep, err
		case notes != nil:
			req.notes, rep.NotesKept = notes, fault // counted as the next scan records them
		case fault != nil:
			rep.Warnings = append(rep.Warnings, fault.Error())
		}
		// A note may have moved a line's registration back (backdateLines).
		for _, sr := range replays {
			if t, err := st.Task(ctx, sr.task.Name); err == nil {
				sr.task.RegisteredAt, sr.task.SettledThrough = t.RegisteredAt, t.SettledThrough
				sr.task.UpdatedAt = t.UpdatedAt // as stored: each replay's claim compares it (store.ClaimRequest.Updated)
			}
		}
	} else {
		req.notes = readPendingNotes(m) // counted as the real scan records them, left for it
	}
	// The tasks are read once the notes are recorded: a note may register
	// its task (a first fire that could not reach the ledger).
	var pending *pendingNotes // a dry run's: the tasks of noted first fires, as the real scan registers them
	if req.DryRun {
		pending = req.notes
	}
	// Dead runs are marked interrupted before the tasks are read: marking
	// one lowers its task's watermark below its slot, which this scan then
	// reads (a run of an old schedule that died after the change, whose
	// slot the new schedule has not, is recorded expired now, not by the
	// next scan: missed.offSchedule).
	stale, err := findStale(ctx, st, m, !req.DryRun)
	if err != nil {
		return rep, err
	}
	tasks, err := scanTargets(ctx, st, req.Tasks, replays, pending)
	if err != nil {
		return rep, err
	}
	if req.DryRun {
		if err := lowerForStale(ctx, st, tasks, stale); err != nil {
			return rep, err
		}
	}
	for i := range tasks {
		if !req.DryRun {
			resolveZone(ctx, st, m, &tasks[i])
		} else if tz := tasks[i].TZ; (tz == "" || tz == "Local") && m.Zone != "" {
			tasks[i].TZ = m.Zone // as the real scan will record it
		}
	}
	silent, err := newSilence(ctx, st, m, tasks)
	if err != nil {
		return rep, err
	}
	var kept []store.Task
	var srs []*shellReplay
	var retired []retiredPart // the tasks retired, their lines gone, with the slots recorded expired
	for _, t := range tasks {
		sr := replays[t.Name]
		if held[t.Name] {
			continue
		}
		if w := cts.scanZoneRefusal(t); w != "" {
			rep.RefusedLines++ // exit 1, as for a refused line
			rep.Warnings = append(rep.Warnings, w)
			continue
		}
		if sr == nil && t.Shell != "" {
			var warning string
			t, sr, warning, err = cts.lineReplay(ctx, st, t, req.DryRun, req.NotifyCmd)
			if warning != "" {
				rep.Warnings = append(rep.Warnings, warning)
			}
			if err != nil { // an edited line scan could not register: as scan --crontab, not scanned
				rep.Warnings = append(rep.Warnings, err.Error())
				if errors.Is(err, errCrontabDirMissing) {
					rep.MissingCrontabs++
				}
				continue
			}
			if sr.gone != "" {
				if m.UID == 0 {
					// Whose line it was is gone with it: root's scan
					// never runs a stored alert that may be another
					// user's (scan's own --notify-cmd still runs).
					t.NotifyCmd = ""
				}
				left, err := retireGone(ctx, st, m, t, sr.gone, req.NotifyCmd, req.DryRun)
				if err != nil {
					return rep, err
				}
				if ts, ok := retiredScan(t.Name, req.Replay, t.Replay, left.report); ok {
					retired = append(retired, retiredPart{at: len(kept), ts: ts}) // in the tasks' order
				}
				continue
			}
			if errors.Is(sr.err, ErrLineRefused) && !refused[t.Name] {
				// A line registered by an earlier scan, refused now: said
				// and counted whether or not the task has missed slots.
				rep.RefusedLines++
				refused[t.Name] = true
				rep.Warnings = append(rep.Warnings, sr.err.Error())
			}
		}
		kept, srs = append(kept, t), append(srs, sr)
	}
	if edited != nil {
		// Recorded by their lines' registration: read from the ledger now.
		if n, k, err := keptNotes(m); err == nil && k == 0 {
			req.notes = nil
		} else if err == nil {
			req.notes = n
		}
	}
	// Other users' lines (a root scan's) are judged with their users'
	// notes of unrecorded fires, which no scan of root's records.
	var refusedNotes []notesRefusal
	req.notes, kept, srs, refusedNotes = usersNotes(m, req.notes, kept, srs)
	for _, r := range refusedNotes {
		rep.Warnings = append(rep.Warnings, r.notReplaying())
	}
	rep.RefusedNotes = len(refusedNotes)
	if !req.DryRun {
		// The alerts that scans killed before them owed: before this
		// scan's replays, which may take long (a dry run leaves them owed).
		payOwedAlerts(ctx, st, m)
	}
	boots := newBootCache(st, m).with(req.notes)
	rep.Tasks, err = scanTasks(ctx, st, m, req, kept, srs, stale, boots)
	if !req.DryRun && ctx.Err() == nil {
		// And, as root, those its users' fires of their lines owe, each as
		// its user: after the replays, which a user's alerts (as many as
		// they write) never hold back.
		payUsersOwedAlerts(ctx, st, m, kept, srs)
	}
	if ctx.Err() != nil {
		// A signal to scan: the replay it cut short is recorded
		// interrupted (the next scan runs it again); the rest waits.
		rep.Stopped, rep.NotScanned, err = true, len(kept)-len(rep.Tasks), nil
	}
	byName := make(map[string]store.Task, len(kept))
	for _, t := range kept {
		byName[t.Name] = t
	}
	for i, ts := range rep.Tasks {
		if w := silent.warning(byName[ts.Task], m.Now(), req.MissedRule); w != "" {
			rep.Tasks[i].Warnings = append(rep.Tasks[i].Warnings, "task "+ts.Task+": "+w)
		}
	}
	rep.Tasks = withRetired(rep.Tasks, retired)
	return rep, err
}

// taskLookupErr says why task n could not be read: unknown, or the
// ledger's own error (unreachable, say), which is not the task's.
func taskLookupErr(n string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return UnknownTask(n)
	}
	return fmt.Errorf("--task %s: %w", n, err)
}

// ErrRetired marks the error of a scan of a named task that is retired.
var ErrRetired = errors.New("task retired")

type retiredError string

func (e retiredError) Error() string        { return string(e) }
func (e retiredError) Is(target error) bool { return target == ErrRetired }

// scanTargets picks the tasks to scan: the named ones, else every task with
// a schedule, ordered by name.
func scanTargets(ctx context.Context, st store.Store, names []string, replays map[string]*shellReplay,
	notes *pendingNotes) ([]store.Task, error) {
	if len(names) > 0 {
		var out []store.Task
		for _, n := range names {
			t, err := st.Task(ctx, n)
			if errors.Is(err, store.ErrNotFound) || err == nil {
				if r, found := notes.registered(n, t, err == nil); found {
					t, err = r, nil
				}
			}
			if sr := replays[n]; sr != nil {
				t, err = sr.task, nil
			}
			if err != nil {
				return nil, taskLookupErr(n, err)
			}
			if !t.RetiredAt.IsZero() {
				return nil, retiredError(fmt.Sprintf("--task %s was retired (catchup forget) at %s: its next fire registers it again", n, rfc(t.RetiredAt)))
			}
			if t.Schedule == "" {
				return nil, fmt.Errorf("--task %s has no schedule: register one with catchup run --cron or a crontab line", n)
			}
			out = append(out, t)
		}
		return out, nil
	}
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	all = notes.tasks(all)
	var out []store.Task
	for _, s := range all {
		if replays[s.Task.Name] == nil && s.Task.Schedule != "" && s.Task.RetiredAt.IsZero() {
			out = append(out, s.Task)
		}
	}
	for _, sr := range replays { // a dry run has not registered them
		out = append(out, sr.task)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
