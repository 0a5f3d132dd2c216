package catchup

import (
	"context"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// TaskStatus is one task as `catchup ls` shows it.
type TaskStatus struct {
	Task       store.Task
	Latest     *store.Run       // nil when it never ran; a running record known dead reads interrupted; not a paused record once the pause is over
	LastSlot   time.Time        // the latest slot of the records Latest is picked from (store.Store.LatestListedSlot)
	Next       time.Time        // its next slot; zero without a schedule
	Zone       *time.Location   // the zone its slots are shown in (UTC when its zone is unknown)
	Missed     []time.Time      // slots scan would deal with now: replay, or record expired
	Causes     []string         // why each slot of Missed was missed, in step with it
	Expiring   int              // how many of Missed the next scan records expired: older than the catch-up window, owed to an older schedule, or all (Left)
	Counts     map[string]int64 // its runs by status, those ListRequest.Counts asks for (nil: none)
	ClockAhead time.Time        // the ledger holds this time of the task, later than now (zero: none)
	Warning    string           // e.g. a schedule that no longer parses
	// BadSchedule: the registered schedule of this active task no longer
	// parses (why, or ""): its missed slots cannot be computed.
	BadSchedule string
	Paused      bool // paused now (catchup pause): Task.PausedUntil says until when
	// Left, when set, says that the next scan records every slot of
	// Missed expired, none replayed: its crontab line was edited or removed.
	Left *LineLeft
	// StartRefused is why no replay of Missed can start here now (asked
	// by ListRequest.StartRefused; nil when one may, or with Left).
	StartRefused error
	// replayable are the slots of Missed the next scan's policy and
	// --max-replays decide about, oldest first: not those older than the
	// catch-up window nor those owed to an older schedule (none with Left).
	replayable []time.Time
}

// ListCounts says which run counts List reads into TaskStatus.Counts.
type ListCounts int

const (
	// CountsNone reads none: text ls and ls --missed show none.
	CountsNone ListCounts = iota
	// CountsExpired reads each task's expired records (ls -o json): one
	// seek per task, counting those records only.
	CountsExpired
	// CountsAll reads every status (metrics): it counts every run of the
	// ledger, a cost that grows with the length of the history.
	CountsAll
)

// ListRequest is what List reads: the missed-slot rule, and the run
// counts wanted.
type ListRequest struct {
	Rule   MissedRule
	Counts ListCounts
	// StartRefused asks whether a replay of each task with missed slots
	// may start here (TaskStatus.StartRefused): ls --missed says so.
	StartRefused bool
	// Tasks, when not empty, are the only tasks listed (the others are
	// not read beyond the ledger's list of tasks).
	Tasks []string
}

// List returns every known task with its latest run, next slot and missed
// slots with their causes, computed with the same rule as scan, counting
// this host's notes of unrecorded fires as the next scan records them. It
// writes nothing. It reads the ledger in a number of statements that does
// not grow with the number of tasks (store.BatchReads): on a shared
// ledger, a round trip per task each was most of its time. A crontab
// line's task has its line re-read as the next scan re-reads it (each
// crontab once): one the scan registers edited, or retires, has the slots
// it leaves behind counted, all expiring (Left), read a few reads each.
func List(ctx context.Context, st store.Store, m Machine, req ListRequest) ([]TaskStatus, error) {
	rule := req.Rule
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	notes := readPendingNotes(m)
	all = notes.tasks(all) // a noted first fire's task, as the next scan registers it
	registered := make([]store.Task, len(all))
	for i, s := range all {
		registered[i] = s.Task
	}
	// Each crontab read once, for every line read again.
	lines := newCrontabs(m)
	notes = readUsersNotes(m, lines, notes, registered) // root's: its users' lines' notes, as root's scan counts them
	if len(req.Tasks) > 0 {
		all = slices.DeleteFunc(all, func(s store.TaskSummary) bool { return !slices.Contains(req.Tasks, s.Task.Name) })
	}
	counts, err := listCounts(ctx, st, req.Counts)
	if err != nil {
		return nil, err
	}
	stale, err := findStale(ctx, st, m, false)
	if err == nil {
		err = lowerTaskForStale(ctx, st, summaryTasks(all), stale) // as scan reads them
	}
	if err != nil {
		return nil, err
	}
	held, err := st.LatestSlots(ctx) // any record's, as scan reads it for the clock
	if err != nil {
		return nil, err
	}
	now := m.Now()
	out := make([]TaskStatus, len(all))
	listed := make([]store.Task, len(all))
	for i, s := range all {
		out[i] = TaskStatus{Task: s.Task, Latest: deadAsInterrupted(notes.noted(s.Latest), stale), Counts: counts(s.Task.Name),
			Paused: Paused(s.Task, now)}
		listed[i] = s.Task
	}
	if err := latestListed(ctx, st, out, all, held, stale, notes); err != nil {
		return nil, err
	}
	if err := cutInDelay(ctx, st, out); err != nil {
		return nil, err
	}
	notedLatest(lines, out, notes, rule.Tolerance)
	silent, err := newSilence(ctx, st, m, listed)
	if err != nil {
		return nil, err
	}
	silent.readBy(lines)
	var asks []missedAsk
	var asked []int // the task of each ask
	for i := range out {
		ts := &out[i]
		t := ts.Task
		sched, err := lines.taskSchedule(t)
		if err != nil && t.RetiredAt.IsZero() { // a retired task's slots are not looked for anyway
			ts.BadSchedule, ts.Warning = err.Error(), badScheduleWarning(t, err)
		}
		ts.Zone = lines.zoneShown(t, sched, err)
		if sched == nil || !t.RetiredAt.IsZero() {
			continue
		}
		if next, ok := sched.Next(now); ok {
			ts.Next = next
		}
		if ts.ClockAhead = aheadOf(t, notes.heldWith(held[t.Name], t, sched, rule.Tolerance), now); !ts.ClockAhead.IsZero() {
			ts.Warning = clockAheadWarning(t.Name, ts.ClockAhead, now, sched) + "; missed slots are not computed"
		} else {
			asks, asked = append(asks, missedAsk{t: t, sched: sched}), append(asked, i)
		}
		ts.Warning = joinWarnings(ts.Warning, silent.warning(t, now, rule))
	}
	found, err := missedOfTasks(ctx, st, m, asks, rule, stale, newBootCache(st, m).with(notes), notes)
	if err != nil {
		return nil, err
	}
	for k, res := range found {
		ts := &out[asked[k]]
		splitPaused(ts.Task, &res)
		if ts.Left, err = lines.lineLeftOf(ctx, st, ts.Task); err != nil {
			return nil, err
		}
		// With the old schedule's slots owed to it, as scan counts them.
		ts.Missed, ts.Causes, ts.Expiring = leftMissed(res, ts.Left)
		if ts.Left == nil {
			ts.replayable = res.slots[res.expiring:]
		}
		if req.StartRefused && len(ts.Missed) > 0 && ts.Left == nil {
			ts.StartRefused = lines.startRefused(ts.Task)
		}
		ts.Causes = walLostCauses(st, ts.Missed, ts.Causes)
	}
	return out, nil
}

// deadAsInterrupted is the latest run as readers show it: a running record
// whose process is known to be gone (stale) is interrupted, as scan records
// it, as ls --running (which leaves it out) and explain say, and as its
// slot counts (missed, cause interrupted). The ledger is not written.
func deadAsInterrupted(r *store.Run, stale map[int64]bool) *store.Run {
	if r == nil || r.Status != store.StatusRunning || !stale[r.ID] {
		return r
	}
	dead := *r
	dead.Status = store.StatusInterrupted
	if store.InRetryDelay(r.Reason) { // as Interrupt records it: it ran nothing
		dead.Reason = store.ReasonRetryCut
	}
	return &dead
}

// zoneOf is the zone a task's slots are shown in: its schedule's, else its
// zone's, else UTC.
func zoneOf(t store.Task, sched *schedule.Schedule) *time.Location {
	if sched != nil {
		return sched.Location()
	}
	loc, err := schedule.LoadZone(t.TZ)
	if err != nil {
		return time.UTC
	}
	return loc
}

// joinWarnings joins two warnings, either of which may be empty.
func joinWarnings(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// summaryTasks points at the task of each of all, to be lowered in place.
func summaryTasks(all []store.TaskSummary) []*store.Task {
	out := make([]*store.Task, len(all))
	for i := range all {
		out[i] = &all[i].Task
	}
	return out
}
