package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// PruneRecorded is what Prune recorded of one task's missed slots before
// its cut, as scan records them (in a dry run, would record).
type PruneRecorded struct {
	Task    string
	Window  time.Duration // the task's catch-up window
	Expired int           // older than the window: recorded expired (reason max-age)
	Paused  int           // slots of the task's pause: recorded paused
}

// pruneCase is one task's missed slots before the cut, as scan would deal
// with them.
type pruneCase struct {
	t      store.Task
	window time.Duration
	expire []expiry
	paused []time.Time
}

// recordBefore deals, before prune moves every watermark up to cut (the
// slots before it lose the runs that settled them), with each missed slot
// at or before the cut that no scan has dealt with yet, so that none
// vanishes unrecorded (guarantees S7b, S8): a slot within its task's
// catch-up window (scan would replay it: a task whose window is longer than
// --older-than, a host whose scan has not run) makes it refuse, before it
// writes anything; one older than the window it records expired, and one of
// the task's pause paused, as scan does. It reads the tasks scan reads
// (scheduled, not retired) back to their watermarks, with scan's default
// rule (each task's own window). It returns the tasks it read paused.
func recordBefore(ctx context.Context, st store.Store, m Machine, cut time.Time, dry bool) ([]PruneRecorded, []store.Task, error) {
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, nil, err
	}
	stale, err := findStale(ctx, st, m, false)
	if err != nil {
		return nil, nil, err
	}
	boots, notes, rule := newBootCache(st, m), readPendingNotes(m), MissedRule{Tolerance: DefaultTolerance}
	var cases []pruneCase
	var pausedTasks []store.Task
	for _, s := range all {
		t := s.Task
		sched, err := parseSchedule(t.Schedule, t.TZ)
		if t.Schedule == "" || !t.RetiredAt.IsZero() || err != nil {
			continue // scan passes it by too
		}
		latest, err := st.LatestSlot(ctx, t.Name)
		if err != nil {
			return nil, nil, err
		}
		if !aheadOf(t, latest, m.Now()).IsZero() {
			continue // scan computes nothing for it until the clock catches up
		}
		res, err := missedSlots(ctx, st, m, t, sched, rule, stale, boots, notes)
		if err != nil {
			return nil, nil, err
		}
		c := pruneCase{t: t, window: catchupWindow(t, rule)}
		if !t.PausedAt.IsZero() {
			pausedTasks = append(pausedTasks, t)
		}
		for _, p := range splitPaused(t, &res) {
			if !p.After(cut) {
				c.paused = append(c.paused, p)
			}
		}
		if inWindow := res.slots[res.expiring:]; len(inWindow) > 0 && !inWindow[0].After(cut) {
			return nil, nil, fmt.Errorf("task %s has missed slots before the cut (%s) that no scan has dealt with, which prune would hide: "+
				"run catchup scan first (it replays them or records them expired), or prune with a longer --older-than",
				t.Name, cut.UTC().Format(time.RFC3339))
		}
		aged := fmt.Sprintf(reasonMaxAge, formatWindow(c.window))
		for _, slot := range res.slots[:res.expiring] {
			if !slot.After(cut) {
				c.expire = append(c.expire, expiry{slot: slot, reason: aged, code: store.ReasonMaxAge})
			}
		}
		if len(c.expire)+len(c.paused) > 0 {
			cases = append(cases, c)
		}
	}
	var out []PruneRecorded
	for _, c := range cases {
		var ts TaskScan
		if err := ts.recordPaused(ctx, st, m, c.t, c.paused, dry); err != nil {
			return out, nil, err
		}
		if err := ts.expire(ctx, st, m, c.t, c.expire, nil, dry); err != nil {
			return out, nil, err
		}
		out = append(out, PruneRecorded{Task: c.t.Name, Window: c.window, Expired: ts.Expired, Paused: ts.Paused})
	}
	return out, pausedTasks, nil
}
