package catchup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
)

// Slot states in an explanation.
const (
	StateMissed       = "missed"
	StateSettled      = "settled"
	StateExpired      = "expired"
	StateRunning      = "running"
	StateDue          = "due"          // cron may still fire it
	StateNotDue       = "not-due"      // later than now
	StateUnregistered = "unregistered" // before the task's registration
	StatePassed       = "passed"       // at or before the watermark, with no record that settles it
	StateUnscheduled  = "unscheduled"  // before the task's schedule took effect, with no record
	StatePaused       = "paused"       // in the task's pause: the next scan records it paused
	StateRetired      = "retired"      // of a retired task: no longer counted
	StateUnrecorded   = "unrecorded"   // its run, or its outcome, is a note on this host: the next scan records it
)

// Event is one line of a slot's story.
type Event struct {
	At     time.Time
	Kind   string // boot, boot-seen, slot, run-start, run-end, skip, expired, paused, slotless
	RunID  int64
	Host   string
	BootID string
	Text   string
}

// Explanation is the story of one slot of a task, for `catchup explain`.
type Explanation struct {
	Task  store.Task
	Slot  time.Time
	State string
	Cause string // why it was (or had been) missed; "" if it was not
	// Expiring is why the next scan records a missed slot expired, as
	// scan's expiries say it ("beyond --max-replays 100"); "" if it replays it.
	Expiring string
	// Policy is the replay policy the answer assumes: the request's
	// (scan's --replay), else the task's, else all.
	Policy  string
	Run     *store.Run // the run that settled, expired or runs it
	Events  []Event
	Summary string // the state in plain words
}

// ExplainRequest names the slot to explain; a zero Slot picks the task's
// latest missed slot, else its latest slot.
type ExplainRequest struct {
	Task string
	Slot time.Time
	MissedRule
	MaxReplays int    // scan's --max-replays: the older missed slots are expiring (0: no bound)
	Replay     string // scan's --replay: overrides the task's policy ("": the task's)
}

// policy is the replay policy scan applies to t under req: its --replay,
// else the task's, else all.
func (req ExplainRequest) policy(t store.Task) string {
	switch {
	case req.Replay != "":
		return req.Replay
	case t.Replay != "":
		return t.Replay
	}
	return "all"
}

// Explain tells the story of one slot from what the ledger holds, and the
// notes of this host's unrecorded fires: the boots around it, the runs that
// name it (fires, claims, skips, replays, outcomes), and why it was missed.
// It writes nothing.
func Explain(ctx context.Context, st store.Store, m Machine, req ExplainRequest) (Explanation, error) {
	t, err := st.Task(ctx, req.Task)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Explanation{}, err
	}
	notes := readPendingNotes(m)
	// A noted first fire's task, as the next scan registers it.
	t, found := notes.registered(req.Task, t, err == nil)
	if !found {
		return Explanation{}, UnknownTask(req.Task)
	}
	// Its line read once, for the notes, its edit and its home.
	lines := newCrontabs(m)
	notes = readUsersNotes(m, lines, notes, []store.Task{t}) // root's: its users' lines' notes, as root's scan counts them
	sched, err := lines.taskSchedule(t)
	if err != nil {
		return Explanation{}, errBadSchedule(t, err)
	}
	if sched == nil {
		return Explanation{}, fmt.Errorf("task %s has no schedule: it has no slots to explain; catchup history %s lists its runs, and a fire with --cron (or a crontab line scan reads) registers one", t.Name, t.Name)
	}
	stale, err := findStale(ctx, st, m, false)
	if err == nil {
		err = lowerTaskForStale(ctx, st, []*store.Task{&t}, stale) // as scan reads it
	}
	if err != nil {
		return Explanation{}, err
	}
	now := m.Now()
	// Its line edited or removed: the next scan records the slots it
	// leaves behind expired, the recent ones too.
	left, err := lines.lineLeftOf(ctx, st, t)
	if err != nil {
		return Explanation{}, err
	}
	slot, offSchedule := req.Slot, false
	if slot.IsZero() && left != nil {
		slot = left.slots[len(left.slots)-1] // its latest missed slot
	} else if slot.IsZero() {
		if slot, err = defaultSlot(ctx, st, m, t, sched, req.MissedRule, stale, notes); err != nil {
			return Explanation{}, err
		}
	} else if p, ok := sched.Prev(slot); !ok || !p.Equal(slot) {
		// A slot of an earlier schedule that a change left, recorded
		// expired (an alert named it), is told from its records.
		held, err := leftByAChange(ctx, st, t.Name, slot)
		if err == nil && !held {
			// Or one still owed to it, which the next scan records so
			// (missed.offSchedule): scan --dry-run lists it.
			held, err = owedToAnOldSchedule(ctx, st, m, t, sched, req.MissedRule, stale, notes, slot)
		}
		if err == nil && !held {
			err = errRanUnderAnEarlierSchedule(ctx, st, t.Name, slot, sched)
		}
		if err != nil || !held {
			return Explanation{}, cmp.Or(err, errNotASlot(slot.UTC().Format(time.RFC3339Nano), slot, m.Now(), sched))
		}
		offSchedule = true
	}
	slot = slot.UTC()
	x := Explanation{Task: t, Slot: slot, Policy: req.policy(t)}
	if slot.After(now) {
		x.State, x.Summary = StateNotDue, "not due yet"
		return x, nil
	}
	tol := req.Tolerance
	runs, err := st.SlotRuns(ctx, t.Name, slot.Add(-earlyFire), slot, tol) // a slotless fire early for it too (earlySlot)
	if err != nil {
		return x, err
	}
	runs = notes.runs(runs, t.Name, sched, knownFrom(&t, sched), slot, slot, tol)
	var records, slotless []store.Run
	for _, r := range runs {
		if r.Slot.IsZero() {
			if standsForASlot(r) {
				slotless = append(slotless, r)
			}
		} else {
			records = append(records, r)
		}
	}
	u, err := newBootCache(st, m).with(notes).taskUptime(ctx, t.Name, firesOf(runs))
	if err != nil {
		return x, err
	}
	x.Events = append(bootEvents(u, slot, now), slotEvent(u, slot, now))
	dead := func(r store.Run) (string, time.Time) { return staleWhy(st, m, r) }
	for _, r := range records {
		if notes.unrecorded(r) {
			x.Events = append(x.Events, notedEvents(r, stale, dead, now)...)
		} else {
			x.Events = append(x.Events, runEvents(r, stale, dead, now)...)
		}
	}
	r, has := slotlessBySlot(sched, slotless, tol)[slot.Unix()]
	if has {
		x.Events = append(x.Events, Event{At: r.StartedAt, Kind: "slotless", RunID: r.ID, Host: r.Host,
			Text: fmt.Sprintf("run %d started on %s without a slot (%s): it counts as this slot's run", r.ID, r.Host, r.Trigger)})
		if !r.EndedAt.IsZero() {
			x.Events = append(x.Events, Event{At: r.EndedAt, Kind: "run-end", RunID: r.ID, Host: r.Host, Text: outcomeText(r)})
		}
	}
	sort.SliceStable(x.Events, func(i, j int) bool { return x.Events[i].At.Before(x.Events[j].At) })
	rule := req.MissedRule
	_, leftBehind := left.has(slot)
	if leftBehind {
		rule.Tolerance = 0 // no fire of the old line comes
	}
	pruned := !t.PrunedThrough.IsZero() && !slot.After(t.PrunedThrough)
	x.state(slotRecords{named: records, slotless: r, has: has, pruned: pruned}, stale, notes, u, m, rule)
	if x.State == StatePassed && pruned {
		// Its success pruned: done all the same, as backfill says.
		done, err := st.PrunedSlots(ctx, t.Name, slot, slot)
		if err != nil {
			return x, err
		}
		if slices.ContainsFunc(done, slot.Equal) {
			x.Summary += "; it succeeded (its run was pruned)"
		}
	}
	if x.State == StateMissed {
		x.walLost(st)
	}
	if x.State == StateMissed && leftBehind {
		x.Expiring = left.Reason
		x.Summary += "; the next scan records it expired: " + left.Reason
	} else if x.State == StateMissed {
		var into time.Time // the coalesced replay that stands for it
		if x.Expiring, into, err = expiringReason(ctx, st, m, t, sched, req, slot, stale, notes); err != nil {
			return x, err
		}
		switch {
		case Unreplayable(t):
			x.Summary += "; the next scan will not replay it: " + redactedTask(t) + "; " + redactedHint
		case x.Expiring != "":
			x.Summary += fmt.Sprintf("; %s: the next scan records it expired", x.Expiring)
		case x.Policy == "none":
			x.Summary += `; replay policy "none": the next scan leaves it missed`
		default:
			// Nothing is recorded of a slot its directory's refusal
			// leaves (a scan's replay, a daemon line's fire): checked
			// now, as the scan checks it.
			if why := lines.startRefused(t); why != nil {
				x.Summary += "; it stays missed, no replay starts: " + why.Error()
			} else if !into.IsZero() {
				x.Summary += fmt.Sprintf(`; replay policy "coalesce": the next scan runs it within the replay of slot %s and records it skipped`,
					formatSlot(into, sched))
			}
		}
	}
	if offSchedule {
		x.Summary += fmt.Sprintf("; a slot of an earlier schedule: the task's is %q in %s", sched.Expr(), sched.Location())
	}
	if clockBound(x.State) {
		w, err := clockAheadNote(ctx, st, t, sched, now, notes, tol)
		if err != nil {
			return x, err
		}
		if w != "" {
			x.Summary += "; but " + w
		}
	}
	return x, nil
}
