package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPruneKeepsTheLastSlot: prune never moves ls's LAST SLOT back
// (LatestListedSlot, the latest slot of the records Tasks picks from). The
// task's latest run by id may be of an older slot than another record (a
// --force rerun or a backfill of an old slot after a newer fire; an expiry
// of the newest slot): prune keeps the record holding that latest slot as
// well as the latest run. A dry run counts the same, with the records a
// real prune adds first (an expiry newer than every slot becomes LAST SLOT
// itself, and the older record may go). Runs start an hour apart from
// t0+10h, in order; the cut is t0+100h, --keep 1.
func TestPruneKeepsTheLastSlot(t *testing.T) {
	type rec struct {
		slot    int // hours after t0
		trigger string
		status  string
	}
	fire := func(slot int, status string) rec { return rec{slot, store.TriggerSchedule, status} }
	cases := map[string]struct {
		runs   []rec
		adding int   // 0: none; else the slot (hours after t0) of one expiry a real prune adds first
		gone   []int // indexes in runs
	}{
		"rerun of an older slot after a newer fire": {
			runs: []rec{fire(1, store.StatusSucceeded), fire(2, store.StatusSucceeded),
				{1, store.TriggerManual, store.StatusSucceeded}},
			gone: []int{0},
		},
		"failed backfill of an old slot after newer fires": {
			runs: []rec{fire(1, store.StatusFailed), fire(2, store.StatusSucceeded), fire(3, store.StatusSucceeded),
				{1, store.TriggerBackfill, store.StatusFailed}},
			gone: []int{0, 1},
		},
		"expiry of the latest slot before a backfill": {
			runs: []rec{fire(1, store.StatusFailed), {3, store.TriggerReplay, store.StatusExpired},
				{1, store.TriggerBackfill, store.StatusSucceeded}},
			gone: []int{0},
		},
		"added expiry newer than every slot": {
			runs: []rec{fire(1, store.StatusSucceeded), fire(2, store.StatusSucceeded),
				{1, store.TriggerManual, store.StatusSucceeded}},
			adding: 5,
			gone:   []int{0, 1}, // the rerun, the newest run that ran, stays
		},
		// The rerun of slot 1 is not shown (the fire of 3 is: the newest
		// slot's), and the expiry added is the newest record; the rerun
		// stays all the same, the newest run that ran (expired records
		// never push those out).
		"added expiry older than the latest slot": {
			runs: []rec{fire(1, store.StatusSucceeded), fire(3, store.StatusSucceeded),
				{1, store.TriggerManual, store.StatusSucceeded}},
			adding: 2,
			gone:   []int{0},
		},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				var ids []int64
				for i, r := range tc.runs {
					at := hour(10 + i)
					if r.status == store.StatusExpired {
						id, err := s.AddRun(ctx, store.Run{Task: "t", Slot: hour(r.slot), Trigger: r.trigger, Status: r.status,
							Reason: store.ReasonMaxAge, Attempt: 1, StartedAt: at, EndedAt: at})
						if err != nil {
							t.Fatal(err)
						}
						ids = append(ids, id)
						continue
					}
					res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "t", Slot: hour(r.slot), Trigger: r.trigger,
						StartedAt: at}, Force: true})
					if !res.Claimed {
						t.Fatalf("Claim of slot %d: %+v", r.slot, res)
					}
					finish(t, s, res.Run.ID, r.status, at.Add(time.Minute))
					ids = append(ids, res.Run.ID)
				}
				req := store.PruneRequest{Before: hour(100), Keep: 1, DryRun: true}
				if tc.adding != 0 {
					req.Adding, req.AddingRan = map[string]int{"t": 1}, map[string]int{"t": 1}
					req.AddingLast, req.AddingLastPaused = map[string]time.Time{"t": hour(tc.adding)}, map[string]time.Time{}
				}
				dry, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatalf("Prune (dry run): %v", err)
				}
				if tc.adding != 0 {
					at := hour(10 + len(tc.runs))
					if _, err := s.AddRun(ctx, store.Run{Task: "t", Slot: hour(tc.adding), Trigger: store.TriggerReplay,
						Status: store.StatusExpired, Reason: store.ReasonMaxAge, Attempt: 1, StartedAt: at, EndedAt: at}); err != nil {
						t.Fatal(err)
					}
				}
				lastSlot, err := s.LatestListedSlot(ctx, "t")
				if err != nil {
					t.Fatal(err)
				}
				before := allRuns(t, s)
				req = store.PruneRequest{Before: hour(100), Keep: 1, Batch: 1}
				var want []int64
				for _, i := range tc.gone {
					want = append(want, ids[i])
				}
				if model := pruned(before, req); !slices.Equal(model, want) {
					t.Fatalf("test table: the rule (pruned) deletes %v, the table %v", model, want)
				}
				res, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatalf("Prune: %v", err)
				}
				if gone := deletedSince(t, s, before); !slices.Equal(gone, want) || res.Runs != int64(len(want)) || dry.Runs != res.Runs {
					t.Errorf("Prune deleted %v (%d; dry run %d), want %v", gone, res.Runs, dry.Runs, want)
				}
				if got, err := s.LatestListedSlot(ctx, "t"); err != nil || !got.Equal(lastSlot) {
					t.Errorf("after the prune, LatestListedSlot = %v, %v; want %v, as before", got, err, lastSlot)
				}
			})
		}
	})
}
