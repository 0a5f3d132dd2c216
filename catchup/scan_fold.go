package catchup

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// standingFolds finds the folds of an earlier coalesced replay of slot
// that still stand: that replay died with its scan (SIGKILL, a power cut)
// before anything could give them back, and its slot, interrupted, is
// replayed now. The replay must be told the whole gap again, whatever the
// task's policy (a plain scan after a one-off --replay coalesce told it
// its own slot's interval: the gap was never run). ok is false when there
// are none. The gap is read back from the last success (or pause) before
// slot, as coalescedGaps reads it.
func standingFolds(ctx context.Context, st store.Store, t store.Task, sched *schedule.Schedule, slot time.Time) (replaySpan, bool, error) {
	prev, err := st.LastSucceededSlot(ctx, t.Name, slot)
	if err != nil {
		return replaySpan{}, false, err
	}
	paused, err := st.LastPausedSlot(ctx, t.Name, slot)
	if err != nil {
		return replaySpan{}, false, err
	}
	if paused.After(prev) {
		prev = paused
	}
	if prev, err = pastExpiries(ctx, st, t.Name, prev, slot); err != nil {
		return replaySpan{}, false, err
	}
	from := prev.Add(time.Second)
	if prev.IsZero() {
		from = t.RegisteredAt
	}
	runs, err := st.SlotRuns(ctx, t.Name, from, slot.Add(-time.Second), 0)
	if err != nil {
		return replaySpan{}, false, err
	}
	reason := fmt.Sprintf(reasonCoalesced, formatSlot(slot, sched))
	g := replaySpan{slot: slot, prev: prev, reason: reason}
	var first time.Time
	for _, r := range runs {
		if isFold(r) && r.Error == reason {
			g.standing = append(g.standing, r.ID)
			if first.IsZero() || r.Slot.Before(first) {
				first = r.Slot
			}
		}
	}
	if len(g.standing) == 0 {
		return replaySpan{}, false, nil
	}
	g.n, g.standingFrom = len(g.standing)+1, first
	if prev.IsZero() {
		g.prev, _ = sched.Prev(first.Add(-time.Second))
	}
	return g, true, nil
}

// replaySpan is what a coalesced replay stands for: the gap after prev,
// n slots, replayed as slot, its last; zero for a replay of one slot.
type replaySpan struct {
	slot time.Time
	prev time.Time
	n    int
	// fold: the gap's other slots, settled (recorded skipped, reason) with
	// the replay's granted claim; see settleFolds.
	fold   []time.Time
	reason string
	// standing: the folds of an earlier replay of slot, killed before it
	// could give them back (standingFolds); given back if this replay
	// does not succeed either.
	standing []int64
	// standingFrom: the earliest slot of standing.
	standingFrom time.Time
	// covered: the failed slots between prev and the gap, whose intervals
	// the replay covers too (counted in n); recorded folded once it
	// succeeds (settleFolds).
	covered []time.Time
	// heldAt: a crontab line's gap slot that another run took before scan
	// recorded the folds (foldBeforeLine): the line is not run (lineGapHeld).
	heldAt time.Time
}

// coalescedGaps splits the missed slots (in slot order) into the gaps that
// no succeeded slot divides, each replayed once as its latest slot, told
// the gap: from the last slot before it whose run succeeded (so that a gap
// after a failed or coalesced run is covered too), else the slot just
// before it; but never before the latest slot this scan records expired
// (those are given up, not coalesced). One replay for gaps a success lies
// between would settle that success's own span a second time. A slot a
// pause settled (paused, recorded by an earlier scan or by this one:
// paused) divides gaps as a success does: a pause's slots are not
// replayed, so no gap reaches back across them; so does a slot an earlier
// scan recorded expired (pastExpiries). Two to four ledger reads per gap,
// from the latest back.
func coalescedGaps(ctx context.Context, st store.Store, task string, sched *schedule.Schedule,
	missed, expired, paused []time.Time) ([]replaySpan, error) {
	var gaps []replaySpan
	for end := len(missed); end > 0; {
		prev, err := st.LastSucceededSlot(ctx, task, missed[end-1])
		if err != nil {
			return nil, err
		}
		held, err := st.LastPausedSlot(ctx, task, missed[end-1])
		if err != nil {
			return nil, err
		}
		for _, p := range paused {
			if p.Before(missed[end-1]) && p.After(held) {
				held = p
			}
		}
		if held.After(prev) {
			prev = held
		}
		if prev, err = pastExpiries(ctx, st, task, prev, missed[end-1]); err != nil {
			return nil, err
		}
		start := sort.Search(end, func(i int) bool { return missed[i].After(prev) })
		g := replaySpan{slot: missed[end-1], prev: prev, n: end - start, fold: missed[start : end-1]}
		if prev.IsZero() {
			g.prev, _ = sched.Prev(missed[start].Add(-time.Second))
		}
		if n := len(expired); n > 0 && expired[n-1].After(g.prev) {
			g.prev = expired[n-1]
		}
		var standing int
		if g.covered, standing, err = failedBetween(ctx, st, task, g.prev, missed[start]); err != nil {
			return nil, err
		}
		g.n += len(g.covered) + standing
		g.reason = fmt.Sprintf(reasonCoalesced, formatSlot(g.slot, sched))
		gaps = append(gaps, g)
		end = start
	}
	slices.Reverse(gaps)
	return gaps, nil
}

// spanOf is what the replay of slot is told and stands for: the gap
// coalescedGaps planned (span), or, for an interrupted slot whose killed
// coalesced replay left its folds standing, that gap again, whatever the
// policy (standingFolds). A crontab line's folds are recorded here, before
// the line runs (foldBeforeLine); lineFolds are their records.
func spanOf(ctx context.Context, st store.Store, m Machine, t store.Task, sched *schedule.Schedule,
	slot time.Time, span replaySpan, cause string) (_ replaySpan, lineFolds []int64, err error) {
	if cause == CauseInterrupted {
		g, ok, err := standingFolds(ctx, st, t, sched, slot)
		switch {
		case err != nil:
			return span, nil, err
		case ok && span.n == 0:
			span = g
		case ok:
			span.standing, span.standingFrom = g.standing, g.standingFrom
		}
	}
	return foldBeforeLine(ctx, st, m, t, span)
}

// failedBetween returns the slots of task strictly between after and
// before that a run failed or timed out and nothing else settled (no
// success, no fold): a coalesced replay told [after, ...) covers their
// intervals too. standing counts the slots there that only a fold settles
// and no success: after is the last success, so their coalesced replay
// never succeeded (killed with its scan, its slot now in the gap), and the
// replay told [after, ...) stands for them too. One read, and none when
// after is zero (the gap starts at the task's first slot).
func failedBetween(ctx context.Context, st store.Store, task string, after, before time.Time) (_ []time.Time, standing int, _ error) {
	if after.IsZero() || !before.After(after.Add(time.Second)) {
		return nil, 0, nil
	}
	runs, err := st.SlotRuns(ctx, task, after.Add(time.Second), before.Add(-time.Second), 0)
	if err != nil {
		return nil, 0, err
	}
	failed, done, folded := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	for _, r := range runs {
		switch {
		case r.Status == store.StatusFailed || r.Status == store.StatusTimeout:
			failed[r.Slot.Unix()] = true
		case r.Status == store.StatusSucceeded:
			done[r.Slot.Unix()] = true
		case isFold(r):
			done[r.Slot.Unix()] = true
			if strings.HasPrefix(r.Error, coalescedPrefix) {
				folded[r.Slot.Unix()] = true
			}
		}
	}
	for _, r := range runs {
		if r.Status == store.StatusSucceeded {
			delete(folded, r.Slot.Unix())
		}
	}
	standing = len(folded)
	var slots []time.Time
	for s := range failed {
		if !done[s] {
			slots = append(slots, time.Unix(s, 0).UTC())
		}
	}
	slices.SortFunc(slots, func(a, b time.Time) int { return a.Compare(b) })
	return slots, standing, nil
}

// pastExpiries moves prev, the last success (or pause) before the gap that
// ends at before, to the latest slot between them that a scan recorded
// expired: those slots were given up, so no coalesced replay is told an
// interval reaching back over them, whichever scan recorded them (this
// scan's own expiries are coalescedGaps' expired). An expiry divides gaps
// as a pause does. One read, none when prev is zero (the gap then starts
// just after the slot before it).
func pastExpiries(ctx context.Context, st store.Store, task string, prev, before time.Time) (time.Time, error) {
	if prev.IsZero() || !before.After(prev.Add(time.Second)) {
		return prev, nil
	}
	runs, err := st.SlotRuns(ctx, task, prev.Add(time.Second), before.Add(-time.Second), 0)
	if err != nil {
		return prev, err
	}
	for _, r := range runs {
		if r.Status == store.StatusExpired && r.Slot.After(prev) {
			prev = r.Slot
		}
	}
	return prev, nil
}

// coalescedPrefix begins every fold's reason (reasonCoalesced).
var coalescedPrefix = strings.SplitN(reasonCoalesced, "%", 2)[0]
