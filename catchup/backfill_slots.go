package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// rangeSlots are a range's slots and which of them to run.
type rangeSlots struct {
	all, run []time.Time
	chosen   map[int64]bool
	why      map[int64]string // why a slot is not run
}

// backfillSlots lists the schedule's slots in [From, To] and picks those
// --only selects: missing (no run gave it an outcome), failed (its latest
// run failed or timed out, or was interrupted after a failure) or all. It
// lists at most the request's maxSlots (checkRangeSize refused a wider
// range), and stops at ctx's end (ErrPlanStopped). The slots of t's pause are skipped, as scan records
// them paused instead of replaying them, unless req.Paused: then a paused
// record settles nothing either.
func backfillSlots(ctx context.Context, st store.Store, t store.Task, sched *schedule.Schedule, req BackfillRequest) (rangeSlots, error) {
	task := t.Name
	rs := rangeSlots{chosen: map[int64]bool{}, why: map[int64]string{}}
	limit := req.maxSlots()
	sched.Slots(req.From.Add(-time.Second), req.To, func(s time.Time) bool {
		rs.all = append(rs.all, s)
		return len(rs.all) < limit && (len(rs.all)%1024 != 0 || ctx.Err() == nil)
	})
	if ctx.Err() != nil {
		return rs, ErrPlanStopped
	}
	if len(rs.all) == 0 {
		return rs, nil
	}
	runs, err := st.SlotRuns(ctx, task, rs.all[0], rs.all[len(rs.all)-1], 0)
	if err != nil {
		return rs, err
	}
	runs = req.notes.runs(runs, task, sched, knownFrom(&t, sched), rs.all[0], rs.all[len(rs.all)-1], DefaultTolerance)
	pruned, err := st.PrunedSlots(ctx, task, rs.all[0], rs.all[len(rs.all)-1])
	if err != nil {
		return rs, err
	}
	settled, latest := map[int64]bool{}, map[int64]store.Run{}
	done := map[int64]store.Run{}  // succeeded: the claim refuses it unless forced (store.HoldsSlot)
	prunedDone := map[int64]bool{} // succeeded, the run since pruned: done all the same
	failedOnce := map[int64]bool{} // a run of it failed or timed out
	for _, s := range pruned {
		settled[s.Unix()], prunedDone[s.Unix()] = true, true
	}
	for _, r := range runs {
		if r.Slot.IsZero() {
			continue
		}
		k := r.Slot.Unix()
		if settles(r, MissedRule{}, nil) && r.Status != store.StatusRunning && !runnableExpiry(r) &&
			!(req.Paused && r.Status == store.StatusPaused) {
			// A run in progress has settled nothing yet: backfill waits
			// for it (the slot's lock, its claim) and goes by its outcome.
			settled[k] = true
		}
		if r.Status == store.StatusFailed || r.Status == store.StatusTimeout {
			failedOnce[k] = true
		}
		if r.Status == store.StatusSucceeded && r.ID > done[k].ID {
			done[k] = r
		}
		// A retry cut in its delay ran nothing: the slot keeps the failed
		// attempt's outcome (store.ReasonRetryCut), as every reader reads it.
		if r.ID > latest[k].ID && !(r.Status == store.StatusSkipped && r.ExitCode != nil) &&
			!(r.Status == store.StatusInterrupted && r.Reason == store.ReasonRetryCut) {
			latest[k] = r
		}
	}
	for i, s := range rs.all {
		if i%1024 == 0 && ctx.Err() != nil {
			return rs, ErrPlanStopped
		}
		k := s.Unix()
		l, ran := latest[k]
		// A slot whose failure an interruption followed (a retry cut while it
		// ran) keeps the failure, as scan --retry-failed reads it.
		failed := ran && (l.Status == store.StatusFailed || l.Status == store.StatusTimeout ||
			l.Status == store.StatusInterrupted && failedOnce[k])
		switch req.Only {
		case "all":
			rs.chosen[k] = true
		case "failed":
			d, succeeded := done[k]
			rs.chosen[k] = failed && !succeeded && !prunedDone[k]
			switch {
			case failed && succeeded:
				rs.why[k] = fmt.Sprintf("already succeeded (run %d); --only all runs it again", d.ID)
			case failed && prunedDone[k]:
				rs.why[k] = "already succeeded (its run was pruned); --only all runs it again"
			case !failed:
				rs.why[k] = "not failed (--only failed)"
			}
		default:
			rs.chosen[k] = !settled[k]
			again := "--only all" // a slot --only failed runs: that, the narrower
			if _, succeeded := done[k]; failed && !succeeded && !prunedDone[k] {
				again = "--only failed"
			}
			switch {
			case settled[k] && ran && req.notes.unrecorded(l):
				rs.why[k] = fmt.Sprintf("already %s (unrecorded, noted on this host); %s runs it again", l.Status, again)
			case settled[k] && ran:
				rs.why[k] = fmt.Sprintf("already %s (run %d); %s runs it again", l.Status, l.ID, again)
			case settled[k] && prunedDone[k]:
				rs.why[k] = "already succeeded (its run was pruned); --only all runs it again"
			}
		}
		if !req.Paused && Paused(t, s) {
			rs.chosen[k] = false
			rs.why[k] = fmt.Sprintf("in the task's pause (%s); --include-paused runs it", pauseSpan(t))
		}
		if rs.chosen[k] {
			rs.run = append(rs.run, s)
		}
	}
	if req.Order == "newest" {
		slices.Reverse(rs.run)
	}
	return rs, nil
}

// runnableExpiry reports whether r is an expiry backfill runs its slot
// for (--only missing): the slot never ran, and backfill, explicit, runs
// it as it runs slots older than the catch-up window. Not a slot the
// task's --replay latest dropped: the task does not want it run.
func runnableExpiry(r store.Run) bool {
	return r.Status == store.StatusExpired && r.Reason != store.ReasonPolicy
}
