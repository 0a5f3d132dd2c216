package catchup

// Backfill: run a task's slots in a range through the run lifecycle, with
// trigger backfill, explicitly (outside the task's registration and the
// catch-up window too).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// BackfillRequest is one checked `catchup backfill`.
type BackfillRequest struct {
	Tasks       []string  // registered tasks with a schedule
	From, To    time.Time // the range, both ends included; To is not after now
	Only        string    // missing | failed | all
	Order       string    // oldest | newest
	DryRun      bool
	Paused      bool // run the slots of the task's pause too (--include-paused); else they are skipped, as scan skips them
	Concurrency int  // tasks at once; a task's slots run one at a time
	MaxSlots    int  // the most slots of a task in the range (0: DefaultBackfillMaxSlots)

	notes *pendingNotes // a dry run's, or those a backfill could not record: counted as the next scan records them (spool_read.go)
}

// Backfill actions, besides scan's failed, skipped and interrupted.
const (
	ActionRan      = "ran"
	ActionWouldRun = "would run"
	ActionLeft     = "left" // not reached: the backfill was stopped first
)

// Why a slot of a stopped backfill did not run (no scan replays a slot for
// backfill: only another backfill does).
const (
	reasonBackfillCut = "stopped with the backfill; backfill it again"
	reasonLeft        = "not run, the backfill was stopped"
	reasonPurged      = "not run: the task was deleted during the backfill (catchup forget --purge)"
	reasonRetired     = "not run: the task was retired during the backfill (catchup forget)"
)

// TaskBackfill is one task's part of a backfill. Its counts add up to
// Slots; Actions has one per slot, in the order they ran (or, with
// DryRun, would run): by slot, newest first with --order newest.
type TaskBackfill struct {
	Task                 string
	Slots                int // slots of the schedule in the range
	Actions              []SlotAction
	Ran, Failed, Skipped int
	Interrupted          int // cut short by a signal to the backfill
	Left                 int // not reached: the backfill was stopped first, or Refused
	// Refused: of Left, those none of which could start for the task's
	// refusal (refusedToStart: its working directory), said once; nothing
	// is recorded of them. The backfill fails (exit 1).
	Refused int
}

// Backfill runs the selected slots of each task in the range.
func Backfill(ctx context.Context, st store.Store, m Machine, req BackfillRequest) ([]TaskBackfill, error) {
	m.asUser = newAccessMemo()
	tasks := make([]store.Task, len(req.Tasks))
	envs := make([][]string, len(req.Tasks)) // a daemon line's variables (daemonLineEnv)
	for i, n := range req.Tasks {
		t, err := st.Task(ctx, n)
		if err != nil && ctx.Err() != nil {
			return nil, ErrPlanStopped // a signal: the lookup's error is its own end
		} else if err != nil {
			return nil, taskLookupErr(n, err)
		}
		if !t.RetiredAt.IsZero() { // as scan --task refuses it: a claim would register it again
			return nil, retiredError(fmt.Sprintf("--task %s was retired (catchup forget) at %s: backfill does not run a "+
				"retired task; a fire of it registers it again", n, rfc(t.RetiredAt)))
		}
		if t.Schedule == "" {
			return nil, fmt.Errorf("--task %s has no schedule: register one with catchup run --cron or a crontab line", n)
		}
		if w := refusedAsRoot(m, t); w != "" {
			return nil, errors.New(w)
		}
		if StoredRedacted(t) {
			hint := "keep the secret out of the line (PGPASSFILE, or a variable line of the crontab) to backfill it"
			if isRunSource(t.Source) {
				hint = redactedHint
			}
			return nil, errors.New(redactedTask(t) + ": backfill cannot run it; " + hint)
		}
		if w := notifyWithheld(t, "backfill does"); w != "" && t.Shell == "" { // a crontab line's: it runs the line, as written
			m.notice("%s", w)
		}
		resolveZone(ctx, st, m, &t)
		tasks[i] = t
		if envs[i], err = daemonLineEnv(m, t); err != nil {
			return nil, err
		}
	}
	// The range's size, before anything runs or is recorded (a signal
	// stops the count).
	scheds := make([]*schedule.Schedule, len(tasks))
	for i, t := range tasks {
		sched, err := storedSchedule(m, nil, t)
		if err != nil {
			return nil, errBadSchedule(t, err)
		}
		if err := checkRangeSize(ctx, t.Name, sched, req); err != nil {
			return nil, err
		}
		scheds[i] = sched
	}
	// The fires that ran unrecorded are done slots too: recorded first, as
	// scan records them, or backfill would run them again.
	if !req.DryRun {
		notes, fault, err := recordNotes(ctx, st, m, DefaultTolerance, "this backfill")
		if err != nil {
			return nil, err
		}
		if fault != nil {
			m.notice("%v", fault)
		}
		req.notes = notes // those that stay, counted as the next scan records them
	} else {
		req.notes = readPendingNotes(m) // counted as the real backfill records them, left for it
	}
	// Runs made since this point (another host's backfill, a fire) settle
	// their slot for this backfill; the newest run id marks it. A ledger
	// that cannot say leaves it to the claim.
	since := int64(0)
	if h, err := st.History(ctx, store.HistoryFilter{Limit: 1}); err == nil && len(h) > 0 {
		since = h[0].ID
	}
	cts := newCrontabs(m) // read here, one task after another: it is not for concurrent use
	srs := make([]*shellReplay, len(tasks))
	for i, t := range tasks {
		if t.Shell != "" {
			if _, _, now, changed, _ := cts.lineEdit(ctx, st, t); changed {
				// Its slots are the old schedule's: the edited line must
				// not run for them.
				return nil, fmt.Errorf("task %s: its crontab line now reads %s (%s), not %s (%s) as registered: "+
					"run catchup scan first, which registers the change, then backfill", t.Name, now.Schedule, now.TZ, t.Schedule, t.TZ)
			}
			srs[i] = cts.shellReplay(t)
		}
	}
	// Other users' lines (a root backfill's) count their users' notes, as
	// root's scan does; a user's notes refused may stand for any slot of
	// the range: nothing runs.
	notes, kept, _, refused := usersNotes(m, req.notes, tasks, srs)
	if len(refused) > 0 || len(kept) != len(tasks) {
		why := make([]string, len(refused))
		for i, r := range refused {
			why[i] = r.notReplaying()
		}
		return nil, fmt.Errorf("%w: %s", ErrNotesRefused, strings.Join(why, "; "))
	}
	req.notes = notes
	// Every task's plan, before any slot runs: a signal while planning
	// stops the backfill, nothing run. A task the backfill is stopped
	// before lists its slots left, from its plan.
	plans := make([]rangeSlots, len(tasks))
	for i, t := range tasks {
		p, err := backfillSlots(ctx, st, t, scheds[i], req)
		if ctx.Err() != nil {
			return nil, ErrPlanStopped
		} else if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	out := make([]TaskBackfill, len(tasks))
	err := ReplayTasks(ctx, req.Concurrency, len(tasks), func(ctx context.Context, i int) error {
		var err error
		mi := m
		if envs[i] != nil {
			mi.Environ = append(append([]string{}, m.Environ...), envs[i]...)
		}
		out[i], err = backfillTask(ctx, st, mi, req, tasks[i], scheds[i], plans[i], srs[i], since)
		return err
	})
	for _, w := range cts.warnings {
		m.notice("warning: %s", w)
	}
	return out, err
}

// backfillTask runs the task's selected slots one after another. Stopped
// by a signal (ctx), it runs no further slot: the one it cut short is
// interrupted, and those it did not reach are left, in the report too.
func backfillTask(ctx context.Context, st store.Store, m Machine, req BackfillRequest, t store.Task,
	sched *schedule.Schedule, slots rangeSlots, sr *shellReplay, since int64) (TaskBackfill, error) {
	tb := TaskBackfill{Task: t.Name}
	tb.Slots = len(slots.all)
	for _, s := range slots.all {
		if !slots.chosen[s.Unix()] {
			tb.Skipped++
			tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionSkipped, Reason: slots.why[s.Unix()]})
		}
	}
	pending := slots.run
	if _, why := replayRefused(m, t, sr); why != nil && len(pending) > 0 {
		tb.leaveRefused(m, t.Name, why, pending, req.DryRun)
		pending = nil
	}
	if req.DryRun {
		// A refusal the backfill meets at each slot's start (wouldNotStart:
		// a crontab line's) fails every slot, as the real one reports it.
		code, reason := wouldNotStart(m, t, sr)
		for _, s := range pending {
			if reason != "" {
				tb.Failed++
				tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionWouldFail, ExitCode: code, Reason: reason})
				continue
			}
			tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionWouldRun})
		}
		pending = nil
	}
	watch, left := newPauseWatch(st, m, t), reasonLeft
	waitSaid := false             // the wait for the task's lock is said once for the task
	claimSaid := map[int64]bool{} // and each run another host's claim holds a slot with
	for delay := 100 * time.Millisecond; len(pending) > 0 && ctx.Err() == nil && left == reasonLeft; delay = min(2*delay, 5*time.Second) {
		var busy []time.Time // tried again after the others; left if the backfill is stopped or the task paused
		for i, s := range pending {
			if ctx.Err() != nil {
				busy = append(busy, pending[i:]...)
				break
			}
			if why := watch.stopped(ctx); why != "" {
				left, busy = why, append(busy, pending[i:]...)
				m.notice("task %s was paused during the backfill: its %d later slots are left, not run", t.Name, len(busy))
				break
			}
			a, err := backfillSlot(ctx, st, m, req, t, sched, sr, s, since, &waitSaid, claimSaid)
			if err != nil && ctx.Err() != nil {
				busy = append(busy, pending[i:]...) // stopped: whether it ran, a backfill again finds out
				break
			} else if err != nil {
				return tb, err
			}
			if a.gone { // its claim found the task purged: it stays so, nothing more runs
				left, busy = reasonPurged, append(busy, pending[i:]...)
				m.notice("task %s was deleted during the backfill (catchup forget --purge): its %d later slots are left, not run",
					t.Name, len(busy))
				break
			}
			if a.retired { // its claim found the task retired: a backfill is no fire (T1), nothing more runs
				left, busy = reasonRetired, append(busy, pending[i:]...)
				m.notice("task %s was retired during the backfill (catchup forget): its %d later slots are left, not run",
					t.Name, len(busy))
				break
			}
			switch {
			case a.Action == ActionSkipped && a.ExitCode == exitLocked:
				busy = append(busy, s) // a run of the slot in progress elsewhere (its outcome decides), or the wait for the lock was stopped
				continue
			case a.Action == ActionReplayed:
				a.Action = ActionRan
				tb.Ran++
			case a.Action == ActionInterrupted: // no scan replays it for backfill
				a.Reason = reasonBackfillCut
				tb.Interrupted++
			case a.Action == ActionFailed:
				tb.Failed++
			default:
				tb.Skipped++
			}
			tb.Actions = append(tb.Actions, a)
		}
		if pending = busy; len(pending) > 0 && left == reasonLeft {
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
		}
	}
	for _, s := range pending { // only when stopped, or the task paused
		tb.Left++
		tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionLeft, Reason: left})
	}
	slices.SortFunc(tb.Actions, func(a, b SlotAction) int { return a.Slot.Compare(b.Slot) })
	if req.Order == "newest" {
		slices.Reverse(tb.Actions) // listed as they ran
	}
	return tb, nil
}
