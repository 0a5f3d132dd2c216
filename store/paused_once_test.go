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
