package catchup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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
	sched, err := parseSchedule(t.Schedule, t.TZ)
	if err != nil {
		return Explanation{}, errBadSchedule(t, err)
	}
	if sched == nil {
		return Explanation{}, fmt.Errorf("task %s has no schedule: it has no slots to explain", t.Name)
	}
	stale, err := findStale(ctx, st, m, false)
	if err != nil {
		return Explanation{}, err
	}
	now := m.Now()
	slot, offSchedule := req.Slot, false
	if slot.IsZero() {
		if slot, err = defaultSlot(ctx, st, m, t, sched, req.MissedRule, stale, notes); err != nil {
			return Explanation{}, err
		}
	} else if p, ok := sched.Prev(slot); !ok || !p.Equal(slot) {
		// A slot of an earlier schedule that a change left, recorded
		// expired (an alert named it), is told from its records.
		held, err := leftByAChange(ctx, st, t.Name, slot)
		if err != nil || !held {
			return Explanation{}, cmp.Or(err, errNotASlot(slot.UTC().Format(time.RFC3339Nano), slot, sched))
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
	runs, err := st.SlotRuns(ctx, t.Name, slot, slot, tol)
	if err != nil {
		return x, err
	}
	runs = notes.runs(runs, t.Name, sched, slot, slot, tol)
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
	hosts := []string{m.Host}
	for _, r := range records {
		hosts = appendNew(hosts, r.Host)
	}
	u, err := newBootCache(st, m).uptime(ctx, hosts)
	if err != nil {
		return x, err
	}
	x.Events = append(bootEvents(u, slot, now), slotEvent(u, hosts, slot, now))
	for _, r := range records {
		if notes.unrecorded(r) {
			x.Events = append(x.Events, notedEvents(r, stale, now)...)
		} else {
			x.Events = append(x.Events, runEvents(r, stale, now)...)
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
	x.state(slotRecords{named: records, slotless: r, has: has}, stale, notes, u, m, req.MissedRule)
	if x.State == StateMissed {
		if x.Expiring, err = expiringReason(ctx, st, m, t, sched, req, slot, stale, notes); err != nil {
			return x, err
		}
		switch {
		case Unreplayable(t):
			x.Summary += "; the next scan will not replay it: " + redactedTask(t) + "; " + redactedHint
		case x.Expiring != "":
			x.Summary += fmt.Sprintf("; %s: the next scan records it expired", x.Expiring)
		case x.Policy == "none":
			x.Summary += `; replay policy "none": the next scan leaves it missed`
		}
	}
	if offSchedule {
		x.Summary += fmt.Sprintf("; a slot of an earlier schedule: the task's is %q in %s", sched.Expr(), sched.Location())
	}
	if clockBound(x.State) {
		w, err := clockAheadNote(ctx, st, t, sched, now)
		if err != nil {
			return x, err
		}
		if w != "" {
			x.Summary += "; but " + w
		}
	}
	return x, nil
}

// slotRecords are a slot's records: the runs that name it, by id, and the
// run without a slot that stands for it (slotless, when has).
type slotRecords struct {
	named    []store.Run
	slotless store.Run
	has      bool
}

// all is every record of the slot, by id: the run without a slot among
// the runs that name it, where it was recorded.
func (sr slotRecords) all() []store.Run {
	if !sr.has {
		return sr.named
	}
	out := append(append([]store.Run(nil), sr.named...), sr.slotless)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// decider is the run that settles the slot by the missed-slot rule
// (slotSettled, as scan, ls, metrics and calendar decide), or nil when the
// slot is not settled.
func (sr slotRecords) decider(rule MissedRule, stale map[int64]bool) *store.Run {
	switch slotSettled(sr.named, sr.slotless, sr.has, rule, stale) {
	case byItsRuns:
		if h, held := claimHolder(sr.named, stale); held {
			return &h // as the claim names it: a later failed record changes nothing
		}
		for i := len(sr.named) - 1; i >= 0; i-- {
			if settles(sr.named[i], rule, stale) {
				return &sr.named[i]
			}
		}
	case bySlotless:
		r := sr.slotless
		return &r
	}
	return nil
}

// settledBefore reports whether the records older than run id had already
// settled the slot by a run of it (or its pause): a run again of a slot that
// was not missed (backfill --only all, a run by hand) gives it no cause. An
// expiry or a policy's skip settles a slot that was missed: it keeps its cause.
func (sr slotRecords) settledBefore(id int64, rule MissedRule, stale map[int64]bool) bool {
	ran := func(r store.Run) bool {
		return r.ID < id && r.Status != store.StatusExpired && r.Status != store.StatusSkipped
	}
	var named []store.Run
	for _, r := range sr.named {
		if ran(r) {
			named = append(named, r)
		}
	}
	return slotSettled(named, sr.slotless, sr.has && ran(sr.slotless), rule, stale) != notSettled
}

// state sets the slot's state, cause, deciding run and summary. A run
// known from a note alone (notes.unrecorded) is no run of the ledger yet:
// none is named.
func (x *Explanation) state(sr slotRecords, stale map[int64]bool, notes *pendingNotes, u uptime, m Machine,
	rule MissedRule) {
	now := m.Now()
	// A slot from before the registration that a run stands for (a
	// backfill of it, a --slot by hand) is settled by it, as any slot is.
	unregistered := x.Slot.Before(x.Task.RegisteredAt.Truncate(time.Second))
	if unregistered && sr.decider(rule, stale) == nil {
		x.State = StateUnregistered
		x.Summary = fmt.Sprintf("before the task's registration (%s): never missed", rfc(x.Task.RegisteredAt))
		return
	}
	records := sr.all()
	if d := sr.decider(rule, stale); d != nil {
		r := *d
		x.Run = d
		if r.Trigger != store.TriggerSchedule && r.Trigger != store.TriggerRetry && !unregistered && !sr.settledBefore(r.ID, rule, stale) {
			x.Cause = causeOf(x.Slot, before(records, r.ID), stale, u)
		}
		switch {
		case notes.unrecorded(r):
			x.State, x.Summary = StateUnrecorded, unrecordedSummary(r)
			if r.ID >= notedRunBase {
				x.Run = nil
			}
		case r.Status == store.StatusRunning:
			x.State, x.Summary = StateRunning, fmt.Sprintf("running (run %d)", r.ID)
			return
		case r.Status == store.StatusExpired:
			x.State, x.Summary = StateExpired, fmt.Sprintf("expired by run %d (%s)", r.ID, r.Error)
		default:
			x.State, x.Summary = StateSettled, fmt.Sprintf("settled by run %d (%s)", r.ID, r.Status)
		}
		if r.Status == store.StatusFailed || r.Status == store.StatusTimeout {
			x.Summary += "; scan --retry-failed would replay it"
		}
		x.Summary += failedSince(sr.named, r)
		if x.Cause != "" {
			x.Summary += fmt.Sprintf("; it had been missed (%s: %s)", x.Cause, CauseWords(x.Cause))
		}
		return
	}
	if beforeSchedule(x.Task, x.Slot, len(records) > 0) {
		x.State = StateUnscheduled
		// Not "never missed": the slot may have been one of the earlier
		// schedule's too, missed then (the fire that changed it said so),
		// and the ledger keeps only the current schedule.
		x.Summary = fmt.Sprintf("before the task's schedule took effect (%s, when its schedule or zone changed): "+
			"not counted under it (a schedule change records the slots the earlier one missed expired, with the reason)", rfc(x.Task.ScheduleSince))
		return
	}
	if !x.Task.SettledThrough.IsZero() && !x.Slot.After(x.Task.SettledThrough) {
		x.State = StatePassed
		x.Summary = fmt.Sprintf("passed by the task's watermark (%s): catchup no longer counts it", rfc(x.Task.SettledThrough))
		if len(records) > 0 {
			// A record of its miss (a lock skip, an interruption) that no
			// replay followed: a schedule change passed it by.
			if c := causeOf(x.Slot, records, stale, uptime{}); c != CauseUnknown {
				x.Cause = c
				x.Summary += fmt.Sprintf("; it had been missed (%s: %s)", c, CauseWords(c))
			}
		}
		return
	}
	// As in the missed-slot rule: cron may still fire a slot younger than
	// the tolerance, unless it lies before this boot, or its fire came and
	// died (diedFiring).
	booted := !m.BootTime.IsZero() && m.BootTime.Before(now) && x.Slot.Before(m.BootTime)
	if now.Sub(x.Slot) < rule.Tolerance && !booted && !diedFiring(records, stale) {
		x.State, x.Summary = StateDue, fmt.Sprintf("due: cron may still fire it (within the tolerance of %s)", formatWindow(rule.Tolerance))
		if lockSkippedFire(records) {
			// Its fire came: "cron may still fire it" would say it did not.
			x.Summary = fmt.Sprintf("due: %s, and was skipped; the first scan after the tolerance of %s replays it, unless another fire of it comes first",
				CauseWords(CauseLockBusy), formatWindow(rule.Tolerance))
		}
		return
	}
	switch {
	case !x.Task.RetiredAt.IsZero():
		x.State = StateRetired
		x.Summary = fmt.Sprintf("the task was retired (%s): catchup no longer counts its slots", rfc(x.Task.RetiredAt))
		return
	case Paused(x.Task, x.Slot):
		x.State = StatePaused
		x.Summary = fmt.Sprintf("in the task's pause (%s): never missed; the next scan records it paused", pauseSpan(x.Task))
		return
	}
	x.State, x.Cause = StateMissed, slotCause(x.Slot, sr, stale, u)
	x.Summary = fmt.Sprintf("missed (%s: %s)", x.Cause, CauseWords(x.Cause))
}

// before returns the records with an id below id.
func before(records []store.Run, id int64) []store.Run {
	var out []store.Run
	for _, r := range records {
		if r.ID < id {
			out = append(out, r)
		}
	}
	return out
}
