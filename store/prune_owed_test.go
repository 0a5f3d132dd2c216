package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A task failing every day, owed its failed slots within its catch-up
// window (PruneRequest.Owed: the earliest of them), is pruned up to that
// slot: the runs of its earlier slots go (a run without a slot, once it
// ended before it), those from it on stay, and its watermark moves to the
// second before it, never past it; in a dry run's count too, and in
// batches. Another task is pruned up to the cut as before. Prune left such
// a task whole (its ledger grew without bound), or pruned it as any other
// (its owed failures gone, the watermark past them).
func TestPruneCutsATaskOwedASlot(t *testing.T) {
	const day = 24 * time.Hour
	owed := t0.Add(30 * day) // the first failed slot within the window
	cut := t0.Add(53*day + 10*time.Hour)
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		for _, n := range []string{"f", "b"} {
			upsert(t, s, store.Task{Name: n, Schedule: "0 2 * * *", TZ: "UTC", RegisteredAt: t0, UpdatedAt: t0})
		}
		var byHand [2]int64 // f's runs without a slot: one ended before owed, one after
		for i := range 60 {
			slot := t0.Add(time.Duration(i) * day)
			for _, n := range []string{"f", "b"} {
				id := mustClaim(t, s, store.Run{Task: n, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
				finish(t, s, id, store.StatusFailed, slot.Add(time.Minute))
			}
			if i == 10 || i == 40 {
				at := slot.Add(5 * time.Hour)
				id := mustClaim(t, s, store.Run{Task: "f", Trigger: store.TriggerManual, StartedAt: at})
				finish(t, s, id, store.StatusFailed, at.Add(time.Minute))
				byHand[i/40] = id
			}
		}
		before := allRuns(t, s)
		want := map[int64]bool{} // the runs that go
		for id, r := range before {
			ended := r.EndedAt.Before(cut)
			switch {
			case r.Task == "b":
				want[id] = ended // all but the latest (59, after the cut)
			case r.Slot.IsZero():
				want[id] = id == byHand[0]
			default:
				want[id] = ended && r.Slot.Before(owed)
			}
		}
		wantN := 0
		for _, gone := range want {
			if gone {
				wantN++
			}
		}
		req := store.PruneRequest{Before: cut, Owed: map[string]time.Time{"f": owed}, Batch: 7}
		dry := req
		dry.DryRun = true
		if res, err := s.Prune(ctx, dry); err != nil || res.Runs != int64(wantN) {
			t.Errorf("Prune (dry run) = %+v, %v; want %d runs", res, err, wantN)
		}
		if res, err := s.Prune(ctx, req); err != nil || res.Runs != int64(wantN) {
			t.Errorf("Prune = %+v, %v; want %d runs", res, err, wantN)
		}
		after := allRuns(t, s)
		for id, r := range before {
			if _, kept := after[id]; kept == want[id] {
				t.Errorf("run %d (task %s, slot %v, ended %v): kept %v, want %v", id, r.Task, r.Slot, r.EndedAt, kept, !want[id])
			}
		}
		f, err := s.Task(ctx, "f")
		if err != nil || !f.SettledThrough.Equal(owed.Add(-time.Second)) {
			t.Errorf("f's watermark %v (%v), want %v: the second before its owed slot", f.SettledThrough, err, owed.Add(-time.Second))
		}
		if !f.PrunedThrough.Before(owed) {
			t.Errorf("f's prune floor %v, want before its owed slot %v", f.PrunedThrough, owed)
		}
		b, err := s.Task(ctx, "b")
		if err != nil || !b.SettledThrough.Equal(cut) {
			t.Errorf("b's watermark %v (%v), want the cut %v", b.SettledThrough, err, cut)
		}
	})
}
