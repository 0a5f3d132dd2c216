package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A slot is recorded paused once: AddRuns leaves out a paused record of a
// slot that holds one (id 0), also within one call and when two ledger
// handles (a scan, a prune) record it at once, as it does an expired
// one; the other records go in. A paused record given back
// (resume --replay-paused: ReasonReplayPaused) settles nothing, and does
// not keep the slot from being recorded paused again.
func TestAddRunsPausesASlotOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		location := be.ledger(t)
		s := be.open(t, location)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		paused := func(h int) store.Run {
			return store.Run{Task: "job", Slot: t0.Add(time.Duration(h) * time.Hour), Trigger: store.TriggerReplay,
				Status: store.StatusPaused, Attempt: 1, StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour)}
		}
		first, err := s.AddRuns(ctx, []store.Run{paused(1)})
		if err != nil || len(first) != 1 || first[0] == 0 {
			t.Fatalf("AddRuns = %v, %v; want one id", first, err)
		}
		skip := store.Run{Task: "job", Slot: t0.Add(time.Hour), Trigger: store.TriggerReplay, Status: store.StatusSkipped,
			StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour)}
		again, err := s.AddRuns(ctx, []store.Run{paused(1), paused(2), skip, paused(3), paused(3)})
		if err != nil || len(again) != 5 || again[0] != 0 || again[1] == 0 || again[2] == 0 || again[3] == 0 || again[4] != 0 {
			t.Fatalf("AddRuns again = %v, %v; want [0 id id id 0]: slot 1 is recorded paused already, slot 3 twice in the call", again, err)
		}
		count := func() int64 {
			t.Helper()
			n, err := s.StatusCount(ctx, "job", store.StatusPaused)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 3 {
			t.Errorf("%d paused records, want 3 (slots 1, 2, 3)", n)
		}
		// Given back, slot 3's record settles nothing: it is recorded anew.
		if _, _, err := s.UnsettlePaused(ctx, "job", t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if ids, err := s.AddRuns(ctx, []store.Run{paused(3)}); err != nil || len(ids) != 1 || ids[0] == 0 {
			t.Errorf("AddRuns of a slot given back = %v, %v; want one id", ids, err)
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
					runs = append(runs, paused(hr))
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
		if n := count(); n != 24 || added != 20 {
			t.Errorf("%d paused records (%d ids given), want 24 (20): %s", n, added, fmt.Sprint(ids))
		}
	})
}

// A fire's paused record (AddRun: one record, a `catchup run` fire of a
// paused task) is recorded once too, under the same rule: a slot that
// holds a paused record settling it (a scan's, a prune's) gets none (id
// 0), also when two handles record it at once; one given back does not
// count. Before, AddRun added a second paused record of the slot.
func TestAddRunPausesASlotOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		location := be.ledger(t)
		s := be.open(t, location)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		paused := func(h int, trigger string) store.Run {
			return store.Run{Task: "job", Slot: t0.Add(time.Duration(h) * time.Hour), Trigger: trigger,
				Status: store.StatusPaused, Attempt: 1, StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour)}
		}
		count := func() int64 {
			t.Helper()
			n, err := s.StatusCount(ctx, "job", store.StatusPaused)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if ids, err := s.AddRuns(ctx, []store.Run{paused(1, store.TriggerReplay)}); err != nil || len(ids) != 1 || ids[0] == 0 {
			t.Fatalf("AddRuns = %v, %v; want one id", ids, err)
		}
		if id, err := s.AddRun(ctx, paused(1, store.TriggerSchedule)); err != nil || id != 0 {
			t.Errorf("AddRun of a slot recorded paused = %d, %v; want 0 (left out)", id, err)
		}
		if id, err := s.AddRun(ctx, paused(2, store.TriggerSchedule)); err != nil || id == 0 {
			t.Errorf("AddRun of a slot not recorded = %d, %v; want an id", id, err)
		}
		if n := count(); n != 2 {
			t.Errorf("%d paused records, want 2 (slots 1, 2)", n)
		}
		// Given back, slot 2's record settles nothing: a fire records it anew.
		if _, _, err := s.UnsettlePaused(ctx, "job", t0.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if id, err := s.AddRun(ctx, paused(2, store.TriggerSchedule)); err != nil || id == 0 {
			t.Errorf("AddRun of a slot given back = %d, %v; want an id", id, err)
		}
		// Two handles at once: a fire (AddRun) and a scan (AddRuns) of slots 10..29.
		handles := []store.Store{s, be.open(t, location)}
		errs := make([]error, len(handles))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, h := range handles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for hr := 10; hr < 30 && errs[i] == nil; hr++ {
					if i == 0 {
						_, errs[i] = h.AddRun(ctx, paused(hr, store.TriggerSchedule))
					} else {
						_, errs[i] = h.AddRuns(ctx, []store.Run{paused(hr, store.TriggerReplay)})
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("handle %d: %v", i, err)
			}
		}
		if n := count(); n != 23 {
			t.Errorf("%d paused records, want 23 (slot 1, slot 2 twice (one given back), 10 to 29 once each)", n)
		}
	})
}
