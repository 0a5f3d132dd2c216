package store_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// pruneLedger fills a ledger for Prune and returns every run by id.
//
//	a: slots 0-9 in order, ended an hour apart, except slot 2 (still
//	   running) and slot 4 (interrupted); slots 0, 3, 6, 9 succeeded.
//	b: one run that ended long ago (its latest).
//	c: two old runs, then a running one (its latest).
//	d: an old run whose end is unknown, then a recent one.
func pruneLedger(t *testing.T, s store.Store) map[int64]store.Run {
	t.Helper()
	ctx := t.Context()
	hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	for i := range 10 {
		id := mustClaim(t, s, store.Run{Task: "a", Slot: hour(i), Trigger: store.TriggerSchedule, StartedAt: hour(i)})
		switch {
		case i == 2:
		case i == 4:
			if _, err := s.Interrupt(ctx, id, hour(i).Add(time.Minute), "gone"); err != nil {
				t.Fatal(err)
			}
		case i%3 == 0:
			finish(t, s, id, store.StatusSucceeded, hour(i).Add(time.Minute))
		default:
			finish(t, s, id, store.StatusFailed, hour(i).Add(time.Minute))
		}
	}
	finish(t, s, mustClaim(t, s, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: hour(-50)}), store.StatusFailed, hour(-50))
	for i := range 2 {
		finish(t, s, mustClaim(t, s, store.Run{Task: "c", Trigger: store.TriggerManual, StartedAt: hour(-40 + i)}), store.StatusSucceeded, hour(-40+i))
	}
	mustClaim(t, s, store.Run{Task: "c", Trigger: store.TriggerManual, StartedAt: hour(-30)})
	finish(t, s, mustClaim(t, s, store.Run{Task: "d", Trigger: store.TriggerManual, StartedAt: hour(-60)}), store.StatusFailed, time.Time{})
	finish(t, s, mustClaim(t, s, store.Run{Task: "d", Trigger: store.TriggerManual, StartedAt: hour(20)}), store.StatusFailed, hour(20))
	return allRuns(t, s)
}

func allRuns(t *testing.T, s store.Store) map[int64]store.Run {
	t.Helper()
	hist, err := s.History(t.Context(), store.HistoryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]store.Run{}
	for _, r := range hist {
		out[r.ID] = r
	}
	return out
}

// pruned is the rule Prune implements, spelled out: the ids it deletes.
// Keep is counted twice, as ls counts the latest: among the records Tasks
// takes for the latest (not a duplicate fire's: skipped, exit 0; see
// store.TaskSummary), and on their own among those LatestRan takes, which
// are not paused either (what ls shows once a pause is over), and among
// those that ran, not expired either (ranDone). A record goes only when
// older than the oldest kept of each count it is in: a duplicate fire's
// record newer than the oldest kept stays, paused records never push out a
// run LatestRan counts, and expired ones never push out a run that ran. The record holding ls's LAST SLOT (the
// latest slot among the records Tasks takes) is kept too.
func pruned(runs map[int64]store.Run, req store.PruneRequest) []int64 {
	byTask := map[string][]int64{}
	for _, id := range slices.Sorted(maps.Keys(runs)) {
		byTask[runs[id].Task] = append(byTask[runs[id].Task], id)
	}
	keep := max(req.Keep, 1)
	// below is the oldest kept id among the records counted; -1 none (all kept).
	below := func(ids []int64, counted func(store.Run) bool) int64 {
		kept := 0
		for i := len(ids) - 1; i >= 0; i-- {
			if counted(runs[ids[i]]) {
				if kept++; kept == keep {
					return ids[i]
				}
			}
		}
		return -1
	}
	// shown is the latest id among the records counted, but an expiry of
	// a slot older than one a counted record that is not an expiry holds,
	// and any record of a slot older than the latest a counted record holds
	// (an expiry's too): the run ls shows (Tasks, or LatestRan past a
	// pause); held is the (latest) record holding the latest slot that is
	// not an expiry's, which keeps those older expiries hidden, lastHeld the
	// (latest) record holding the latest slot, which keeps the records of
	// older slots hidden. All always kept.
	shown := func(ids []int64, counted func(store.Run) bool) []int64 {
		var top, lastTop time.Time
		held, lastHeld := int64(-1), int64(-1)
		for _, id := range ids {
			r := runs[id]
			if !counted(r) || r.Slot.IsZero() {
				continue
			}
			if r.Status != store.StatusExpired && !r.Slot.Before(top) {
				top, held = r.Slot, id
			}
			if !r.Slot.Before(lastTop) {
				lastTop, lastHeld = r.Slot, id
			}
		}
		for i := len(ids) - 1; i >= 0; i-- {
			r := runs[ids[i]]
			if !counted(r) || (r.Status == store.StatusExpired && r.Slot.Before(top)) || (!r.Slot.IsZero() && r.Slot.Before(lastTop)) {
				continue
			}
			out := []int64{ids[i]}
			if slices.ContainsFunc(ids[i+1:], func(id int64) bool {
				e := runs[id]
				return counted(e) && e.Status == store.StatusExpired && e.Slot.Before(top)
			}) {
				out = append(out, held) // an expiry newer than it is hidden by held
			}
			if slices.ContainsFunc(ids[i+1:], func(id int64) bool {
				e := runs[id]
				return counted(e) && !e.Slot.IsZero() && e.Slot.Before(lastTop)
			}) {
				out = append(out, lastHeld) // a record of an older slot newer than it is hidden by lastHeld
			}
			return out
		}
		return nil
	}
	// lastSlot is the (latest) record holding the latest slot among the
	// records counted, an expiry too: ls's LAST SLOT, always kept.
	lastSlot := func(ids []int64, counted func(store.Run) bool) int64 {
		var top time.Time
		held := int64(-1)
		for _, id := range ids {
			if r := runs[id]; counted(r) && !r.Slot.IsZero() && !r.Slot.Before(top) {
				top, held = r.Slot, id
			}
		}
		return held
	}
	var out []int64
	for _, ids := range byTask {
		notDuplicate := func(r store.Run) bool { return !duplicate(r) }
		listed := below(ids, notDuplicate)
		ran := below(ids, ranForLatest)
		done := below(ids, ranDone)
		keptShown := append(shown(ids, notDuplicate), shown(ids, ranForLatest)...)
		keptShown = append(keptShown, lastSlot(ids, notDuplicate))
		for _, id := range ids {
			r := runs[id]
			if id < listed && (!ranForLatest(r) || id < ran) && (!ranDone(r) || id < done) && !slices.Contains(keptShown, id) &&
				r.Status != store.StatusRunning && !r.EndedAt.IsZero() && r.EndedAt.Before(req.Before) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ranForLatest reports whether LatestRan may pick r: not a duplicate
// fire's record, nor a paused one.
func ranForLatest(r store.Run) bool {
	return !duplicate(r) && r.Status != store.StatusPaused
}

// ranDone reports whether r ran: one LatestRan may pick that is not an
// expiry either, which prune counts Keep among a third time.
func ranDone(r store.Run) bool {
	return ranForLatest(r) && r.Status != store.StatusExpired
}

// duplicate reports whether r is the record of a fire that found its slot
// held (skipped, exit 0), which ls does not take for a task's latest run.
func duplicate(r store.Run) bool {
	return r.Status == store.StatusSkipped && r.ExitCode != nil && *r.ExitCode == 0
}

// deletedSince returns, sorted, the ids of the runs in before that s no
// longer holds.
func deletedSince(t *testing.T, s store.Store, before map[int64]store.Run) []int64 {
	t.Helper()
	after := allRuns(t, s)
	var gone []int64
	for id := range before {
		if _, ok := after[id]; !ok {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	return gone
}

// pruneByTheRule prunes s with --keep keep before cut, in a dry run
// and then for real, checks that both count the wantN runs the rule
// (pruned) deletes, and returns the runs before and the ids to be gone.
func pruneByTheRule(t *testing.T, s store.Store, cut time.Time, keep int, wantN int64) (map[int64]store.Run, []int64) {
	t.Helper()
	ctx := t.Context()
	before := allRuns(t, s)
	req := store.PruneRequest{Before: cut, Keep: keep}
	want := pruned(before, req)
	if int64(len(want)) != wantN {
		t.Fatalf("test table: the rule deletes %v, the table says %d runs", want, wantN)
	}
	dry := req
	dry.DryRun = true
	if res, err := s.Prune(ctx, dry); err != nil || res.Runs != wantN {
		t.Errorf("Prune (dry run) = %+v, %v; want %d runs", res, err, wantN)
	}
	if res, err := s.Prune(ctx, req); err != nil || res.Runs != wantN {
		t.Errorf("Prune = %+v, %v; want %d runs", res, err, wantN)
	}
	return before, want
}
