package catchup

import (
	"context"
	"errors"
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
		KillAfter: t.KillAfter, NoCapture: t.NoCapture, NotifyCmd: t.NotifyCmd, OnBusy: t.OnBusy, MaxAge: t.MaxAge}
}

// task is the task row of registration n for task name, as of its fire.
func (n *noteTask) task(name string, at time.Time) store.Task {
	return store.Task{Name: name, Schedule: n.Schedule, TZ: n.TZ, Replay: n.Replay, Argv: n.Argv, Dir: n.Dir,
		Source: n.Source, Retries: n.Retries, RetryDelay: n.RetryDelay, RegisteredAt: n.RegisteredAt, UpdatedAt: at,
		Timeout: n.Timeout, KillAfter: n.KillAfter, NoCapture: n.NoCapture, NotifyCmd: n.NotifyCmd, OnBusy: n.OnBusy,
		MaxAge: n.MaxAge, SettledThrough: n.RegisteredAt.Add(-time.Second)}
}

// registerNoted registers, before their fires are recorded, the tasks of
// entries from the first note of each that carries a registration (notes
// are in the order of their fires): a task the ledger does not know, from
// the note; one a later fire registered under the note's schedule, moved
// back to the note's (store.Backdate). Any other keeps its registration:
// retired since, rescheduled, read from a crontab line, or registered
// before the note's fire.
func registerNoted(ctx context.Context, st store.Store, entries []spoolEntry) error {
	done := map[string]bool{}
	for _, e := range entries {
		if e.Register == nil || e.ByHand || done[e.Task] {
			continue
		}
		done[e.Task] = true
		n := e.Register
		t, err := st.Task(ctx, e.Task)
		switch {
		case errors.Is(err, store.ErrNotFound):
			err = st.UpsertTask(ctx, n.task(e.Task, e.StartedAt))
		case err != nil:
		case t.RetiredAt.IsZero() && !strings.HasPrefix(t.Source, "crontab:") && t.RegisteredAt.After(n.RegisteredAt) &&
			schedule.SameExpr(t.Schedule, n.Schedule) && (n.TZ == "" || schedule.SameZone(t.TZ, n.TZ)):
			// A note's local zone ("") is the one scan resolved the task's to.
			_, err = st.Backdate(ctx, e.Task, n.RegisteredAt)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
