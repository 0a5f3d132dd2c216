package catchup

import (
	"context"
	"errors"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// Slot states in a calendar, from best to worst (a day shows its worst).
const (
	CellNone     = "none"     // before the task was registered, passed by its watermark (before a schedule change), or of a retired task
	CellPending  = "pending"  // not due yet, or cron may still fire it
	CellRan      = "ran"      // fired by cron on time, succeeded
	CellReplayed = "replayed" // succeeded by a replay: scan's, or backfill's, or by hand (run --slot)
	CellSkipped  = "skipped"  // settled by a skip policy
	CellPaused   = "paused"   // settled while the task was paused
	CellLate     = "late"     // fired by cron, succeeded, but started over a minute after its slot
	CellRunning  = "running"  // a run of it is in progress
	CellExpired  = "expired"  // scan gave up on it: older than the catch-up window
	CellMissed   = "missed"   // no outcome: scan would replay it
	CellFailed   = "failed"   // its latest attempt failed or timed out, and none succeeded
)

// CellStates lists the states worst last: a day's cell shows the latest
// of its slots' states in this order.
var CellStates = []string{CellNone, CellPending, CellRan, CellReplayed, CellSkipped, CellPaused, CellLate,
	CellRunning, CellExpired, CellMissed, CellFailed}

// lateAfter is how long after its slot a cron fire may start and still be
// on time.
const lateAfter = time.Minute

// CalendarSlot is one slot of a task and what became of it.
type CalendarSlot struct {
	Slot  time.Time
	State string
	RunID int64  // the run that decided the state; 0 for none, or a fire noted on this host alone
	Cause string // why a missed slot was missed (Cause*, as ls --missed says); "" for any other state
	// OldSchedule: a slot the task's schedule (or zone) does not have,
	// drawn from its records (recordedCell): its old schedule's.
	OldSchedule bool
}

// CalendarRow is one task's slots in the calendar's range.
type CalendarRow struct {
	Task    string
	Zone    *time.Location
	Slots   []CalendarSlot // oldest first
	Warning string         // e.g. no schedule
}

// CalendarRequest selects the tasks (all when empty) and the range
// (From, To]; slots after now are pending.
type CalendarRequest struct {
	Tasks    []string
	From, To time.Time
	Rule     MissedRule
}

// maxCalendarSlots bounds the slots of one task in a calendar.
const maxCalendarSlots = 50000

// Calendar passes emit every selected task's slots from req.From to now, each
// with its state, from what the ledger holds and the notes of this host's
// unrecorded fires, as the next scan records them. It writes nothing. The
// row's Slots are reused for the next row: emit must not keep them. The
// runs of every task are read in one read of the ledger (SlotRunsOf),
// each task's row passed to emit as its runs come, before the next
// task's are read: 10,000 every-minute tasks are 100 M slots, and a
// shared ledger's round trip per task was most of a calendar's time.
func Calendar(ctx context.Context, st store.Store, m Machine, req CalendarRequest, emit func(CalendarRow) error) error {
	tasks, err := calendarTasks(ctx, st, req.Tasks)
	if err != nil {
		return err
	}
	stale, err := findStale(ctx, st, m, false)
	if err == nil {
		err = lowerForStale(ctx, st, tasks, stale) // as scan reads them
	}
	if err != nil {
		return err
	}
	held, err := st.LatestSlots(ctx)
	if err != nil {
		return err
	}
	// Each crontab read once, for every line read again.
	lines := newCrontabs(m)
	notes := readUsersNotes(m, lines, readPendingNotes(m), tasks) // root's: its users' lines' notes, as root's scan counts them
	c := &calendarReader{m: m, req: req, stale: stale, notes: notes, now: m.Now(), held: held,
		boots: newBootCache(st, m).with(notes), left: map[string]*LineLeft{}, lines: lines}
	if span, ok := store.LostWindow(st); ok {
		c.lost = &span
	}
	for _, t := range tasks {
		// Before the runs are read: an edited or removed line's task
		// reads the ledger (a few reads), which its stream would hold.
		if c.left[t.Name], err = lines.lineLeftOf(ctx, st, t); err != nil {
			return err
		}
	}
	scheds, errs := make([]*schedule.Schedule, len(tasks)), make([]error, len(tasks))
	var ranges []store.SlotRange
	var of []int // the task of each range
	for i, t := range tasks {
		if scheds[i], errs[i] = lines.taskSchedule(t); scheds[i] != nil {
			// from earlier when the rule looks earlier: the causes' hosts
			ranges, of = append(ranges, store.SlotRange{Task: t.Name, From: calendarReadFrom(req.From, t), To: c.now}), append(of, i)
			c.scheduled = append(c.scheduled, t.Name)
		}
	}
	next := 0 // the next task whose row is emitted
	// emitUpTo emits the rows before task end (tasks without a schedule:
	// no runs), then end's, with runs.
	emitUpTo := func(end int, runs []store.Run) error {
		for ; next <= end && next < len(tasks); next++ {
			var these []store.Run
			if next == end {
				these = runs
			}
			row, err := c.row(ctx, tasks[next], scheds[next], errs[next], these)
			if err != nil {
				return err
			}
			if err := emit(row); err != nil {
				return err
			}
		}
		return nil
	}
	err = st.SlotRunsOf(ctx, ranges, req.Rule.Tolerance, func(k int, runs []store.Run) error {
		return emitUpTo(of[k], runs)
	})
	if err != nil {
		return err
	}
	return emitUpTo(len(tasks), nil)
}

// calendarReader makes the calendar's rows, one task at a time.
type calendarReader struct {
	m     Machine
	req   CalendarRequest
	stale map[int64]bool
	notes *pendingNotes
	now   time.Time
	held  map[string]time.Time // every task's latest slot of any record
	boots *bootCache           // the uptime the causes of missed cells are read from
	left  map[string]*LineLeft // the slots the next scan records expired, its task's line edited or removed
	slots []CalendarSlot       // the last row's, reused (10,000 tasks of 10,080 slots each)
	lines *crontabs            // each crontab read once: a task's zone file read as its user
	// scheduled are the tasks with a schedule, whose first fires the
	// first row with a missed cell reads at once (firesRead).
	scheduled []string
	firesRead bool
	lost      *store.LostSpan // the window of records the ledger lost with its -wal, while its mark stands
}

// row is task t's slots and their states, with its schedule (sched, or
// why it has none: schedErr) and runs, SlotRuns(t, calendarReadFrom(
// req.From, t), now, tolerance); its missed slots with their causes. It
// reads only the boots of hosts not read yet, when a slot is missed.
func (c *calendarReader) row(ctx context.Context, t store.Task, sched *schedule.Schedule, schedErr error,
	runs []store.Run) (CalendarRow, error) {
	req, now, stale, m := c.req, c.now, c.stale, c.m
	row := CalendarRow{Task: t.Name}
	row.Zone = c.lines.zoneShown(t, sched, schedErr)
	switch {
	case schedErr != nil:
		row.Warning = badScheduleWarning(t, schedErr)
	case sched == nil:
		row.Warning = "no schedule: its runs have no slots"
	}
	if sched == nil {
		return row, nil
	}
	runs = c.notes.runs(runs, t.Name, sched, knownFrom(&t, sched), req.From, now, req.Rule.Tolerance)
	if w := clockAheadNoteAt(t, c.notes.heldWith(c.held[t.Name], t, sched, req.Rule.Tolerance), sched, now); w != "" {
		// No slot is missed or replayed until the clock passes the
		// ledger (ls, metrics and scan say none): an empty row.
		row.Warning = w
		return row, nil
	}
	byslot, slotless := indexRuns(runs)
	bySlot := slotlessBySlot(sched, slotless, req.Rule.Tolerance)
	upTo := req.To
	if upTo.Before(now) {
		upTo = now
	}
	due := dueBefore(m, req.Rule, now)
	leftBehind := func(slot time.Time) bool { // no fire of its old line comes
		_, ok := c.left[t.Name].has(slot)
		return ok
	}
	withRuns, next := slotKeys(byslot, bySlot), 0 // in order, as the slots come
	row.Slots = c.slots[:0]
	defer func() { c.slots = row.Slots }()
	// offSchedule adds the recorded slots before key that the schedule
	// does not have (an old schedule's or zone's): drawn from their records.
	offSchedule := func(key int64) {
		for ; next < len(withRuns) && withRuns[next] < key; next++ {
			if k := withRuns[next]; k > req.From.Unix() && k <= upTo.Unix() && len(row.Slots) < maxCalendarSlots {
				owed := k > t.SettledThrough.Unix() && t.RetiredAt.IsZero() && owedToOldSchedule(byslot[k], req.Rule, stale)
				row.Slots = append(row.Slots, recordedCell(time.Unix(k, 0).In(row.Zone), byslot[k], stale, owed))
			}
		}
	}
	sched.Slots(req.From, upTo, func(slot time.Time) bool {
		c := CalendarSlot{Slot: slot}
		var r store.Run
		var ok, settled, recorded, died bool
		key := slot.Unix()
		offSchedule(key)
		if next < len(withRuns) && withRuns[next] == key { // most slots have no run: no lookups
			sl, has := bySlot[key]
			runs := byslot[key]
			recorded = has || len(runs) > 0
			settled = slotSettled(runs, sl, has, req.Rule, stale) != notSettled
			died = diedFiring(runs, stale)
			if r, ok = decidingRun(runs, stale); !ok {
				r, ok = sl, has
			}
			next++ // a slot of the schedule: not an old one's
		}
		switch {
		case ok && (settled || failedAttempt(r)):
			// Missed or not by the rule scan and ls use (a failed slot
			// shows F, also when --retry-failed counts it missed).
			c.State, c.RunID = runState(r, slot, stale), r.ID
			if r.ID >= notedRunBase {
				c.RunID = 0 // no run of the ledger yet
			}
		case slot.Before(t.RegisteredAt.Add(-time.Second)) || !slot.After(t.SettledThrough) || !t.RetiredAt.IsZero() ||
			beforeSchedule(t, slot, recorded):
			// Before the task, passed by its watermark (a schedule
			// or zone change counts from when it was made), before its
			// schedule took effect, or of a retired task: never
			// missed, as scan reads it.
			c.State = CellNone
		case Paused(t, slot) && !slot.After(due): // the next scan records it paused; one not due yet is pending
			c.State = CellPaused
		case slot.After(due) && !died && !leftBehind(slot): // a fire that came and died is missed at once, as scan reads it
			c.State = CellPending
		default: // missed by the same rule (slotSettled)
			c.State = CellMissed
		}
		row.Slots = append(row.Slots, c)
		return len(row.Slots) < maxCalendarSlots
	})
	offSchedule(upTo.Unix() + 1)
	return row, c.addCauses(ctx, t, &row, runs, byslot, bySlot)
}

// calendarTasks returns the named tasks, or every task.
func calendarTasks(ctx context.Context, st store.Store, names []string) ([]store.Task, error) {
	if len(names) == 0 {
		all, err := st.Tasks(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]store.Task, 0, len(all))
		for _, s := range all {
			out = append(out, s.Task)
		}
		return out, nil
	}
	out := make([]store.Task, 0, len(names))
	for _, n := range names {
		t, err := st.Task(ctx, n)
		if errors.Is(err, store.ErrNotFound) {
			return nil, UnknownTask(n)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
