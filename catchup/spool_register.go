package catchup

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// The first fire of a --cron task registers the task with its claim. One
// that cannot reach the ledger claims nothing: its note carries what that
// registration would have been (noteTask), and the scan that records the
// note registers the task from it, as of the fire, so that the note's slot
// is covered by the missed-slot rule: missed (ledger-unreachable) and
// replayed once when the fire did not run, ran when it ran unrecorded.
// Without it, the task would register at its next fire, after the slot,
// and the slot would be before its registration: never missed, never run.

// noteTask is the registration a fire that could not reach the ledger
// would have made: the fields of registration, the command as the ledger
// keeps it (redact.Argv), never its environment.
type noteTask struct {
	Schedule     string        `json:"schedule"`
	TZ           string        `json:"tz,omitempty"`
	Replay       string        `json:"replay"`
	Argv         []string      `json:"argv"`
	Dir          string        `json:"dir,omitempty"`
	Source       string        `json:"source"`
	Retries      int           `json:"retries,omitempty"`
	RetryDelay   time.Duration `json:"retry_delay,omitempty"`
	RegisteredAt time.Time     `json:"registered_at"`
	Timeout      time.Duration `json:"timeout,omitempty"`
	KillAfter    time.Duration `json:"kill_after,omitempty"`
	NoCapture    bool          `json:"no_capture,omitempty"`
	NotifyCmd    string        `json:"notify_cmd,omitempty"`
	OnBusy       string        `json:"on_busy"`
	MaxAge       time.Duration `json:"max_age,omitempty"`
	// HostZone: TZ is the host's zone, not --tz or CRON_TZ (changed).
	HostZone bool `json:"host_zone,omitempty"`
	// ExplicitSlot: the fire had --slot, so that a change of a registered
	// task's schedule it makes counts from the fire, not from its slot
	// (changeFrom), as lifecycle.scheduleFrom makes it for a fire that
	// reads the task.
	ExplicitSlot bool `json:"explicit_slot,omitempty"`
}

// changeFrom is when a change of a registered task's schedule that note
// n's fire (at) makes counts from: its registration instant, but the fire
// itself for a --slot fire.
func (n *noteTask) changeFrom(at time.Time) time.Time {
	if n.ExplicitSlot {
		return at
	}
	return n.RegisteredAt
}

// noteRegistration is what a note of this fire (slot fr.slot) carries of
// its task's registration: nil unless the fire registers a schedule (--cron)
// and did not read the task from the ledger (a fire that did is of a task
// already registered; a replay never registers).
func (l *lifecycle) noteRegistration(now, slot time.Time) *noteTask {
	if l.req.Schedule == nil || l.registered != nil || l.revive != nil || !l.req.ReplaySlot.IsZero() {
		return nil
	}
	t := l.taskRow(now, slot, l.req.TZ, l.req.Schedule.Expr())
	return &noteTask{Schedule: t.Schedule, TZ: t.TZ, Replay: t.Replay, Argv: t.Argv, Dir: t.Dir, Source: t.Source,
		Retries: t.Retries, RetryDelay: t.RetryDelay, RegisteredAt: t.RegisteredAt, Timeout: t.Timeout,
		KillAfter: t.KillAfter, NoCapture: t.NoCapture, NotifyCmd: t.NotifyCmd, OnBusy: t.OnBusy, MaxAge: t.MaxAge,
		HostZone: l.req.ZoneFromHost, ExplicitSlot: !l.req.Slot.IsZero()}
}

// task is the task row of registration n for task name, as of its fire.
func (n *noteTask) task(name string, at time.Time) store.Task {
	return store.Task{Name: name, Schedule: n.Schedule, TZ: n.TZ, Replay: n.Replay, Argv: n.Argv, Dir: n.Dir,
		Source: n.Source, Retries: n.Retries, RetryDelay: n.RetryDelay, RegisteredAt: n.RegisteredAt, UpdatedAt: at,
		Timeout: n.Timeout, KillAfter: n.KillAfter, NoCapture: n.NoCapture, NotifyCmd: n.NotifyCmd, OnBusy: n.OnBusy,
		MaxAge: n.MaxAge, SettledThrough: n.RegisteredAt.Add(-time.Second)}
}

// registerNoted registers, before their fires are recorded, the tasks of
// entries from their notes that carry a registration (notes are in the
// order of their fires): a task the ledger does not know, from the note;
// one a later fire registered under the schedule of its first note, moved
// back to the note's (store.Backdate); one registered before a note's
// fire, and not since, that the note's line changed in schedule, zone or
// command, changed as of that fire (rescheduleNoted), each such note in
// turn. Any other keeps its registration: retired since, read from a
// crontab line, or registered by a reachable fire since the note's.
func registerNoted(ctx context.Context, st store.Store, m Machine, entries []spoolEntry) error {
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Register == nil || e.ByHand {
			continue
		}
		first := !seen[e.Task]
		seen[e.Task] = true
		n := e.Register
		t, err := st.Task(ctx, e.Task)
		switch {
		case errors.Is(err, store.ErrNotFound):
			err = st.UpsertTask(ctx, n.task(e.Task, e.StartedAt))
		case err != nil:
		case first && n.backdates(t):
			_, err = st.Backdate(ctx, e.Task, n.RegisteredAt)
		default:
			err = rescheduleNoted(ctx, st, m, t, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// backdates reports whether registration n moves task t's back: t, a
// --cron task (not a crontab line's) under n's schedule, registered after
// n, by a later fire.
func (n *noteTask) backdates(t store.Task) bool {
	// A note's local zone ("") is the one scan resolved the task's to.
	return t.RetiredAt.IsZero() && !strings.HasPrefix(t.Source, "crontab:") && t.RegisteredAt.After(n.RegisteredAt) &&
		schedule.SameExpr(t.Schedule, n.Schedule) && (n.TZ == "" || schedule.SameZone(t.TZ, n.TZ))
}

// registered is task t (found: the ledger knows it) as the next scan leaves
// it once it registers the tasks of these notes (registerNoted), and
// whether it is known then: for the readers, which write nothing.
func (n *pendingNotes) registered(name string, t store.Task, found bool) (store.Task, bool) {
	if n == nil {
		return t, found
	}
	first := true
	for _, e := range n.fires {
		if e.Task != name || e.Register == nil || e.ByHand {
			continue
		}
		switch r := e.Register; {
		case !found:
			t, found = r.task(name, e.StartedAt), true
		case first && r.backdates(t):
			t.RegisteredAt = r.RegisteredAt
			if !t.SettledThrough.Before(r.RegisteredAt) {
				t.SettledThrough = r.RegisteredAt.Add(-time.Second)
			}
			// Backdate moves when the schedule took effect back with
			// them: the readers count the slots the scan will.
			if !t.ScheduleSince.IsZero() && !t.ScheduleSince.Before(r.RegisteredAt) {
				t.ScheduleSince = r.RegisteredAt.Add(-time.Second)
			}
		default:
			t = r.rescheduledAsNoted(t, e.StartedAt)
		}
		first = false // each later note in turn, as registerNoted
	}
	return t, found
}

// tasks is all, the ledger's tasks ordered by name, as the next scan leaves
// them once it registers the tasks of these notes (registered).
func (n *pendingNotes) tasks(all []store.TaskSummary) []store.TaskSummary {
	if n == nil {
		return all
	}
	known := make(map[string]bool, len(all))
	for i, s := range all {
		known[s.Task.Name] = true
		all[i].Task, _ = n.registered(s.Task.Name, s.Task, true)
	}
	for _, e := range n.fires {
		if known[e.Task] {
			continue
		}
		if t, ok := n.registered(e.Task, store.Task{}, false); ok {
			known[e.Task] = true
			all = append(all, store.TaskSummary{Task: t})
		}
	}
	slices.SortFunc(all, func(a, b store.TaskSummary) int { return strings.Compare(a.Task.Name, b.Task.Name) })
	return all
}

// backdateLines covers, once runs (the records of fire notes) are in the
// ledger, the slot of each in the schedule of its task when the task is a
// crontab line registered after it: cron fired the line then, before a
// scan learned it (a line's fire registers nothing), so its slots count
// from that fire: one that did not run is missed and replayed, one that
// ran is settled by its record.
func backdateLines(ctx context.Context, st store.Store, runs []store.Run) error {
	for _, r := range runs {
		if r.Slot.IsZero() || r.Reason == store.ReasonByHand {
			continue
		}
		t, err := st.Task(ctx, r.Task)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if t.RetiredAt.IsZero() && strings.HasPrefix(t.Source, "crontab:") && t.RegisteredAt.After(r.Slot) {
			if _, err := st.Backdate(ctx, r.Task, r.Slot); err != nil {
				return err
			}
		}
	}
	return nil
}
