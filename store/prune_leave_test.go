package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// Prune leaves the tasks it is told to leave whole: none of their runs
// goes, in a dry run's count too, and their watermark does not move; the
// other tasks are pruned as before.
func TestPruneLeavesTasksWhole(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		before := pruneLedger(t, s)
		req := store.PruneRequest{Before: t0.Add(100 * time.Hour), Leave: []string{"a", "nobody"}}
		want := 0
		for _, id := range pruned(before, req) {
			if before[id].Task != "a" {
				want++
			}
		}
		settled := map[string]time.Time{}
		for _, n := range []string{"a", "b"} {
			task, err := s.Task(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			settled[n] = task.SettledThrough
		}
		dry := req
		dry.DryRun = true
		if res, err := s.Prune(ctx, dry); err != nil || res.Runs != int64(want) {
			t.Errorf("Prune (dry run) = %+v, %v; want %d runs, none of task a", res, err, want)
		}
		res, err := s.Prune(ctx, req)
		if err != nil || res.Runs != int64(want) {
			t.Errorf("Prune = %+v, %v; want %d runs, none of task a", res, err, want)
		}
		after := allRuns(t, s)
		for id, r := range before {
			if _, ok := after[id]; !ok && r.Task == "a" {
				t.Errorf("run %d of task a, left whole, was deleted", id)
			}
		}
		a, err := s.Task(ctx, "a")
		if err != nil || !a.SettledThrough.Equal(settled["a"]) {
			t.Errorf("task a's watermark %v (%v), want %v: left whole, it does not move", a.SettledThrough, err, settled["a"])
		}
		b, err := s.Task(ctx, "b")
		if err != nil || !b.SettledThrough.Equal(req.Before) {
			t.Errorf("task b's watermark %v (%v), want the cut %v", b.SettledThrough, err, req.Before)
		}
	})
}

// A slot is recorded expired once: AddRuns leaves out an expired record of
// a slot that holds one (id 0), also when two ledger handles (a scan, a
// prune) record it at once; the other records go in.
func TestAddRunsExpiresASlotOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		location := be.ledger(t)
		s := be.open(t, location)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		expired := func(h int) store.Run {
			return store.Run{Task: "job", Slot: t0.Add(time.Duration(h) * time.Hour), Trigger: store.TriggerReplay,
				Status: store.StatusExpired, StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour), Reason: store.ReasonMaxAge}
		}
		first, err := s.AddRuns(ctx, []store.Run{expired(1)})
		if err != nil || len(first) != 1 || first[0] == 0 {
			t.Fatalf("AddRuns = %v, %v; want one id", first, err)
		}
		skip := store.Run{Task: "job", Slot: t0.Add(time.Hour), Trigger: store.TriggerReplay, Status: store.StatusSkipped,
			StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour)}
		again, err := s.AddRuns(ctx, []store.Run{expired(1), expired(2), skip})
		if err != nil || len(again) != 3 || again[0] != 0 || again[1] == 0 || again[2] == 0 {
			t.Fatalf("AddRuns again = %v, %v; want [0 id id]: slot 1 is recorded expired already", again, err)
		}
		// Two handles at once, each recording slots 10..29.
		handles := []store.Store{s, be.open(t, location)}
		ids := make([][]int64, len(handles))
		errs := make([]error, len(handles))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, h := range handles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var runs []store.Run
				for hr := 10; hr < 30; hr++ {
					runs = append(runs, expired(hr))
				}
				ids[i], errs[i] = h.AddRuns(ctx, runs)
			}()
		}
		close(start)
		wg.Wait()
		added := 0
		for i := range handles {
			if errs[i] != nil {
				t.Fatalf("AddRuns by handle %d: %v", i, errs[i])
			}
			for _, id := range ids[i] {
				if id != 0 {
					added++
				}
			}
		}
		counts, err := s.ExpiredCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n := counts["job"][store.ReasonMaxAge]; n != 22 || added != 20 {
			t.Errorf("%d expired records (%d ids given), want 22 (20): %s", n, added, fmt.Sprint(ids))
		}
	})
}
