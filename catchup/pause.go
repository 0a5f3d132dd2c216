package catchup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// reasonPaused is the error of a slot recorded paused.
const reasonPaused = "the task was paused"

// PauseRequest is one checked `catchup pause`.
type PauseRequest struct {
	Task  string
	Until time.Time // zero: until catchup resume
}

// PauseResult is the task after pause or resume.
type PauseResult struct {
	Task      store.Task
	Unsettled int64 // resume --replay-paused: slots recorded paused that scan will now replay
	// PruneFloor (resume --replay-paused): when not zero, the slots of the
	// pause through it stay as they are: prune took runs of slots up to it,
	// and the watermark never goes below them again (store.UnsettlePaused).
	PruneFloor time.Time
	// PausedThrough is the last instant of the resumed pause's slots that
	// the prune floor keeps as they are (at most PruneFloor): with PausedAt,
	// the range a backfill --include-paused runs them in.
	PausedAt, PausedThrough time.Time
	// Beyond (resume --replay-paused): the slots given back that the next
	// scan records expired, older than the task's catch-up window.
	Beyond BeyondWindow
}

// Paused reports whether task t is paused at time at.
func Paused(t store.Task, at time.Time) bool {
	return store.InPause(t.PausedAt, t.PausedUntil, at)
}

// Pause pauses a task from now: its fires exit 0 without running, and scan
// records its slots paused instead of replaying them, until req.Until (or
// catchup resume). Pausing a paused task moves its end. A task keeps one
// pause: a new one replaces a pause that is over, once the slots of that
// pause which nothing recorded are recorded paused (recordEndedPause).
func Pause(ctx context.Context, st store.Store, m Machine, req PauseRequest) (PauseResult, error) {
	if err := notesBefore(ctx, st, m, DefaultTolerance, "this pause"); err != nil { // the slots a pause that ended records paused
		return PauseResult{}, err
	}
	t, err := activeTask(ctx, st, req.Task)
	if err != nil {
		return PauseResult{}, err
	}
	now := m.Now().Truncate(time.Second) // a pause starts on a whole second, as slots do
	if !req.Until.IsZero() && !req.Until.After(now) {
		return PauseResult{}, fmt.Errorf("--until %s is not in the future: give a later time, or leave it out to pause until catchup resume", rfc(req.Until))
	}
	from := now
	switch {
	case Paused(t, now):
		from = t.PausedAt // already paused: keep its start, move its end
	case !t.PausedAt.IsZero():
		if _, err := recordEndedPause(ctx, st, m, t, time.Time{}); err != nil {
			return PauseResult{}, fmt.Errorf("record the slots of the pause that ended at %s: %w", rfc(t.PausedUntil), err)
		}
	}
	if err := st.SetPause(ctx, t.Name, from, req.Until); err != nil {
		return PauseResult{}, err
	}
	t.PausedAt, t.PausedUntil = from, req.Until
	return PauseResult{Task: t}, nil
}

// keepResumedPause undoes, for task t as it was read paused, what a
// `resume --replay-paused` that committed meanwhile would have undone: the
// paused records and the watermark a scan or a fire wrote after the resume
// from a pause it had read, which passed the pause's slots by for good.
// Called after those writes: a resume that commits later undoes them
// itself. (The resume clears the pause and unsettles its slots in one
// transaction; a plain resume keeps PausedAt, and its slots stay paused.)
func keepResumedPause(ctx context.Context, st store.Store, t store.Task) error {
	if t.PausedAt.IsZero() {
		return nil
	}
	now, err := st.Task(ctx, t.Name)
	if err != nil || !now.PausedAt.IsZero() || !now.RetiredAt.IsZero() || now.RegisteredAt.After(t.RegisteredAt) {
		return nil // still paused, retired, unreadable or registered anew: nothing of a resume to keep
	}
	_, _, err = st.UnsettlePaused(ctx, t.Name, t.PausedAt)
	return err
}

// pauseSpan says when t's pause began and ends: "since TIME, until TIME"
// (or "until catchup resume T").
func pauseSpan(t store.Task) string {
	until := "catchup resume " + t.Name
	if !t.PausedUntil.IsZero() {
		until = rfc(t.PausedUntil)
	}
	return fmt.Sprintf("since %s, until %s", rfc(t.PausedAt), until)
}

// activeTask reads a task that is not retired.
func activeTask(ctx context.Context, st store.Store, name string) (store.Task, error) {
	t, err := st.Task(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return t, UnknownTask(name)
	}
	if err != nil {
		return t, err
	}
	if !t.RetiredAt.IsZero() {
		return t, fmt.Errorf("task %s was retired (catchup forget) at %s: its next fire registers it again", name, rfc(t.RetiredAt))
	}
	return t, nil
}

// splitPaused takes the slots of t's pause out of res: they are settled
// paused, not replayed nor expired.
func splitPaused(t store.Task, res *missed) (paused []time.Time) {
	if t.PausedAt.IsZero() {
		return nil
	}
	var slots []time.Time
	var causes []string
	expiring := 0
	for i, s := range res.slots {
		if Paused(t, s) {
			paused = append(paused, s)
			continue
		}
		slots = append(slots, s)
		if len(res.causes) > i {
			causes = append(causes, res.causes[i])
		}
		if i < res.expiring {
			expiring++
		}
	}
	res.slots, res.causes, res.expiring = slots, causes, expiring
	return paused
}

// recordEndedPause records as paused, as the next scan would have, the
// slots of t's pause (up to now, and before before unless it is zero) that
// nothing recorded: no fire came, no scan ran since. Without it, the pause
// that replaces it would leave them missed, and scan would run them;
// resume --replay-paused would give them back as not-fired (or host-down)
// instead of paused; forget, and scan's retirement of a removed line,
// would leave them with no record at all. It returns the slots recorded.
// A task purged since t was read (or purged and registered again) gets
// none: the error wraps store.ErrGone; one retired since gets them (not
// store.Of.Live: forget and the daemon record them of the task they retire).
func recordEndedPause(ctx context.Context, st store.Store, m Machine, t store.Task, before time.Time) ([]time.Time, error) {
	return recordPauseOf(ctx, st, m, t, before, store.Of{Registered: t.RegisteredAt})
}

// recordPauseOf is recordEndedPause for the records of t as of (a schedule
// change's: store.OfLive, so that a task retired since gets none either).
func recordPauseOf(ctx context.Context, st store.Store, m Machine, t store.Task, before time.Time, of store.Of) ([]time.Time, error) {
	if t.PausedAt.IsZero() {
		return nil, nil
	}
	s, err := storedSchedule(m, nil, t)
	if err != nil || s == nil {
		return nil, nil // no slots to record: scan passes such a task by too
	}
	res, err := missedSlots(ctx, st, m, t, s, MissedRule{}, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	paused := splitPaused(t, &res)
	if !before.IsZero() {
		paused = slices.DeleteFunc(paused, func(slot time.Time) bool { return !slot.Before(before) })
	}
	return paused, addPaused(ctx, st, m, t.Name, of, paused)
}

// recordPaused records the slots of t's pause as paused, in one
// transaction (in a dry run, only says it would).
// of, when set, is the task as read: one purged since (or registered again)
// gets none (store.ErrGone), nor, of.Live, one retired since (store.ErrRetired).
func (ts *TaskScan) recordPaused(ctx context.Context, st store.Store, m Machine, t store.Task, of store.Of, slots []time.Time, dry bool) error {
	ts.Paused = len(slots)
	if dry {
		return nil
	}
	return addPaused(ctx, st, m, t.Name, of, slots)
}

// addPaused records slots of task as paused, in one transaction; of: as
// recordPaused's.
func addPaused(ctx context.Context, st store.Store, m Machine, task string, of store.Of, slots []time.Time) error {
	if len(slots) == 0 {
		return nil
	}
	runs := make([]store.Run, len(slots))
	now := m.Now() // one reading: a record decided at once takes no time
	for i, s := range slots {
		runs[i] = store.Run{Task: task, Slot: s, Trigger: store.TriggerReplay, Status: store.StatusPaused,
			Attempt: 1, StartedAt: now, EndedAt: now, Host: m.Host, PID: m.PID, BootID: m.BootID, Error: reasonPaused}
	}
	_, err := st.AddRunsOf(ctx, of, runs)
	return err
}

// pausedFire records a scheduled fire of a slot of the task's pause as
// paused, without running it; ok is false when the slot is not in the
// pause. The slot decides, as it does for scan (splitPaused), not the
// fire's clock: a late fire in the pause of a slot from before it, or a
// fire early for the slot at the pause's end, stands for a slot the pause
// does not settle (scan replays it, resume --replay-paused does not give
// it back), so it runs.
func (l *lifecycle) pausedFire(ctx context.Context, f fire) (RunResult, bool) {
	if l.registered == nil || f.trigger != store.TriggerSchedule || !Paused(*l.registered, f.slot) {
		return RunResult{}, false
	}
	t := l.registered
	now := l.m.Now()
	// The fire registers its line first, as a fire outside the pause does
	// with its claim: a line changed during the pause is what the pause's
	// slots replay with after resume --replay-paused. The pause itself is
	// not the registration's, so it stays. The two writes need not be one
	// transaction: a crash between them leaves the line registered and the
	// slot unrecorded but unsettled (the registration's watermark is below
	// it), as if cron had not fired it; the next scan records it paused,
	// once, and a replay runs the registered line
	// (pause_fire_crash_between.txtar). The reverse, a record without the
	// line, cannot follow a crash: the line is written first.
	if reg := l.registration(ctx, now, f.slot, false); reg != nil {
		if err := l.st.UpsertTask(ctx, *reg); err != nil {
			l.m.notice("task %s: cannot register its line: %v", t.Name, err)
		}
	}
	r := store.Run{Task: t.Name, Slot: f.slot, Trigger: f.trigger, Status: store.StatusPaused, Attempt: 1,
		StartedAt: now, EndedAt: now, Host: l.m.Host, PID: l.m.PID, BootID: l.m.BootID, Error: reasonPaused}
	seeBootOrSay(ctx, l.st, l.m) // the fire proves this boot up now, as a claim does (S7d)
	// A slot a scan (or a prune) recorded paused already is recorded no
	// more: the ledger records a slot paused once (AddRun, as AddRuns; id 0).
	id, err := l.st.AddRun(ctx, r)
	if err != nil {
		l.m.notice("task %s: cannot record its paused slot: %v", t.Name, err)
	} else if err := keepResumedPause(ctx, l.st, *t); err != nil {
		l.m.notice("task %s: cannot give back its paused slot to a resume: %v", t.Name, err)
	}
	r.ID = id
	l.m.notice("task %s is paused (%s): not running slot %s", t.Name, pauseSpan(*t), rfc(f.slot))
	return RunResult{Run: r, Skipped: true}, true
}
