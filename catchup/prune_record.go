package catchup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// PruneRecorded is what Prune recorded of one task's missed slots before
// its cut, as scan records them (in a dry run, would record).
type PruneRecorded struct {
	Task    string
	Window  time.Duration // the task's catch-up window
	Expired int           // older than the window: recorded expired (reason max-age)
	Last    time.Time     // the latest slot recorded expired (zero: none)
	// LastPaused is the latest slot recorded paused (zero: none).
	LastPaused time.Time
	Paused     int // slots of the task's pause: recorded paused
}

// PruneLeft is a task prune left whole (its runs and its watermark), and
// why: scan passes it by, so prune cannot tell which of its slots before
// the cut were missed, and moving its watermark would drop them unrecorded.
type PruneLeft struct {
	Task string
	Why  string
}

// prunedGoneWhy is why prune left whole a task purged since it read it
// (catchup forget --purge; perhaps registered again since, as a new task).
const prunedGoneWhy = "it was forgotten since prune read it (catchup forget): none of its old slots recorded"

// prunedRetiredWhy is why prune left whole a task retired since it read it
// (catchup forget, which recorded its missed slots itself).
const prunedRetiredWhy = "it was retired since prune read it (catchup forget): none of its old slots recorded"

// prunedRetiredLateWhy is why prune left a task retired since it read it,
// once its old slots were recorded: the ledger's prune refused it
// (store.ErrRetired), and moved its watermark no further and deleted no
// more of its runs.
const prunedRetiredLateWhy = "it was retired since prune read it (catchup forget): its watermark and its runs left as forget left them"

// prunedGoneLateWhy is prunedRetiredLateWhy for a task purged since
// (store.ErrGone; perhaps registered again since, as a new task).
const prunedGoneLateWhy = "it was forgotten since prune read it (catchup forget --purge): nothing of it pruned"

// PruneOwed is a task whose failed slot before the cut is younger than its
// catch-up window (Window, or the watermark's horizon when larger): scan
// --retry-failed and backfill --only failed still run it, so prune keeps
// the task's runs from that slot (Slot, the earliest such) on, and moves
// its watermark no further than the second before it. The runs of earlier
// slots go as any task's.
type PruneOwed struct {
	Task   string
	Slot   time.Time
	Window time.Duration
}

// pruneCase is one task's missed slots before the cut, as scan would deal
// with them.
type pruneCase struct {
	t      store.Task
	window time.Duration
	expire expirySpan // its slots older than the catch-up window, up to the cut
	paused []time.Time
}

// pruneRead is what recordBefore read and did.
type pruneRead struct {
	recorded []PruneRecorded
	paused   []store.Task // the tasks it read paused
	left     []PruneLeft
	owed     []PruneOwed // by task name
	// of is each task it read not retired, as read (store.OfLive): the
	// ledger's prune refuses one retired or purged since.
	of map[string]store.Of
}

// recordBefore deals, before prune moves the watermarks up to cut (the
// slots before it lose the runs that settled them), with each missed slot
// at or before the cut that no scan has dealt with yet, so that none
// vanishes unrecorded (guarantees S7b, S8): a slot within its task's
// catch-up window (scan would replay it: a task whose window is longer than
// --older-than, a host whose scan has not run) makes it refuse, before it
// writes anything; one older than the window it records expired, and one of
// the task's pause paused, as scan does, and runs the task's alert for its
// expiries as scan does (req.NotifyCmd, else the task's own). It reads the
// tasks scan reads (scheduled, not retired) back to their watermarks, with
// scan's default rule (each task's own window). A task scan passes by (a
// schedule that does not parse, a ledger holding a slot later than now) it
// leaves whole, and says why (pruneRead.left); so too one purged since it
// read it (catchup forget --purge), of which it records nothing.
func recordBefore(ctx context.Context, st store.Store, m Machine, cut time.Time, req PruneRequest) (pruneRead, error) {
	out := pruneRead{of: map[string]store.Of{}}
	all, err := st.Tasks(ctx)
	if err != nil {
		return out, err
	}
	for _, s := range all {
		if s.Task.RetiredAt.IsZero() {
			out.of[s.Task.Name] = store.OfLive(s.Task.RegisteredAt)
		}
	}
	stale, err := findStale(ctx, st, m, false)
	if err != nil {
		return out, err
	}
	held, err := st.LatestSlots(ctx)
	if err != nil {
		return out, err
	}
	notes := readPendingNotes(m)
	boots, rule := newBootCache(st, m).with(notes), MissedRule{Tolerance: DefaultTolerance}
	var asks []missedAsk
	var leftBefore []int  // how many tasks before each ask were left whole: an error stops there
	cts := newCrontabs(m) // the lines of root's tasks' users, read once (storedSchedule)
	for _, s := range all {
		t := s.Task
		if t.Schedule == "" || !t.RetiredAt.IsZero() {
			continue // no slots to miss
		}
		sched, err := storedSchedule(m, cts, t)
		if err != nil {
			out.left = append(out.left, PruneLeft{Task: t.Name, Why: badScheduleWarning(t, err)})
			continue
		}
		if ahead := aheadOf(t, held[t.Name], m.Now()); !ahead.IsZero() {
			out.left = append(out.left, PruneLeft{Task: t.Name, Why: clockAheadWarning(t.Name, ahead, m.Now(), sched)})
			continue
		}
		asks, leftBefore = append(asks, missedAsk{t: t, sched: sched}), append(leftBefore, len(out.left))
	}
	found, err := missedOfTasks(ctx, st, m, asks, rule, stale, boots, notes)
	if err != nil {
		if len(asks) > 0 {
			out.left = out.left[:leftBefore[0]]
		}
		return out, err
	}
	var cases []pruneCase
	for k, res := range found {
		t := asks[k].t
		c := pruneCase{t: t, window: catchupWindow(t, rule)}
		if !t.PausedAt.IsZero() {
			out.paused = append(out.paused, t)
		}
		for _, p := range splitPaused(t, &res) {
			if !p.After(cut) {
				c.paused = append(c.paused, p)
			}
		}
		// A killed coalesced replay's slot it records expired goes with its gap.
		if err := res.withExpiringDeadFolds(ctx, st, m, t, asks[k].sched, req.DryRun); err != nil {
			out.left = out.left[:leftBefore[k]]
			return out, err
		}
		if inWindow := res.slots[res.expiring:]; len(inWindow) > 0 && !inWindow[0].After(cut) {
			out.left = out.left[:leftBefore[k]]
			return out, fmt.Errorf("task %s has missed slots before the cut (%s) that no scan has dealt with, which prune would hide: "+
				"run catchup scan first (it replays them or records them expired), or prune with a longer --older-than",
				t.Name, cut.UTC().Format(time.RFC3339))
		}
		if f := res.win.firstFailed; !f.IsZero() && !f.After(cut) && f.After(m.Now().Add(-max(c.window, watermarkHorizon))) {
			// Scan holds the watermark below a failed slot this recent
			// (advanceWatermark), so that --retry-failed finds it: moving
			// it to the cut, and deleting the failure, would drop it. The
			// runs of the slots before it go (a task failing every day
			// would otherwise keep every run forever).
			out.owed = append(out.owed, PruneOwed{Task: t.Name, Slot: f, Window: max(c.window, watermarkHorizon)})
		}
		n := 0 // the expiring slots up to the cut: the first ones (oldest first)
		for n < res.expiring && !res.slots[n].After(cut) {
			n++
		}
		c.expire = expirySpan{slots: res.slots[:n], causes: causesUpTo(res.causes, n),
			reason: fmt.Sprintf(reasonMaxAge, FormatDuration(c.window)), code: store.ReasonMaxAge}
		if len(c.expire.slots)+len(c.paused) > 0 {
			cases = append(cases, c)
		}
	}
	if req.beforeRecord != nil {
		req.beforeRecord()
	}
	for _, c := range cases {
		ts := TaskScan{Task: c.t.Name, Policy: cmp.Or(c.t.Replay, "all")}
		// The records are of the task as read: one purged since (or purged
		// and registered again) gets none (store.ErrGone), nor one retired
		// since (store.ErrRetired: forget recorded its slots), and is left
		// whole.
		of := store.OfLive(c.t.RegisteredAt)
		err := ts.recordPaused(ctx, st, m, c.t, of, c.paused, req.DryRun)
		var owed *owedAlertFile // paid once alerted, else by the next scan (oweAlert)
		if err == nil {
			owed = oweAlert(m, alertCommand(m, req.NotifyCmd, c.t), c.t, givenAlertAt(c.t, req.NotifyCmd), ts.Policy,
				[]expirySpan{c.expire}, req.DryRun)
			err = ts.expire(ctx, st, m, c.t, of, []expirySpan{c.expire}, req.DryRun)
		}
		if why := prunedGoneWhy; errors.Is(err, store.ErrGone) || errors.Is(err, store.ErrRetired) {
			if errors.Is(err, store.ErrRetired) {
				why = prunedRetiredWhy
			}
			out.left = append(out.left, PruneLeft{Task: c.t.Name, Why: why})
			out.paused = slices.DeleteFunc(out.paused, func(t store.Task) bool { return t.Name == c.t.Name })
			continue
		}
		if err != nil {
			return out, err
		}
		rec := PruneRecorded{Task: c.t.Name, Window: c.window, Expired: ts.Expired, Paused: ts.Paused}
		if n := len(c.expire.slots); n > 0 {
			rec.Last = c.expire.slots[n-1] // recorded after the paused ones, in slot order
		}
		for _, p := range c.paused {
			if p.After(rec.LastPaused) {
				rec.LastPaused = p
			}
		}
		out.recorded = append(out.recorded, rec)
		var aerr error
		if !req.DryRun && ts.Expired > 0 {
			// As loud as scan's expiries: the task's alert, with the
			// slots this prune recorded expired.
			// prune's own, given here, runs where prune runs (taskAlertDir).
			aerr = alertExpired(ctx, m, req.NotifyCmd, givenAlertAt(c.t, req.NotifyCmd), ts)
		}
		owed.paidUnlessStopped(ctx, m, c.t.Name, aerr)
	}
	slices.SortStableFunc(out.left, func(a, b PruneLeft) int { return cmp.Compare(a.Task, b.Task) }) // the gone ones too
	out.owed = slices.DeleteFunc(out.owed, func(o PruneOwed) bool {
		return slices.ContainsFunc(out.left, func(l PruneLeft) bool { return l.Task == o.Task })
	})
	slices.SortFunc(out.owed, func(a, b PruneOwed) int { return cmp.Compare(a.Task, b.Task) })
	return out, nil
}
