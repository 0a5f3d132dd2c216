package store_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestPrune(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		tests := map[string]struct {
			req  store.PruneRequest
			want int64 // deleted, as a check of the model
		}{
			"nothing that old":               {req: store.PruneRequest{Before: hour(-100)}},
			"zero bound":                     {req: store.PruneRequest{}},
			"before the first hours":         {req: store.PruneRequest{Before: hour(2)}, want: 4},
			"bound is exclusive":             {req: store.PruneRequest{Before: hour(1).Add(time.Minute)}, want: 3},
			"everything, keep the latest":    {req: store.PruneRequest{Before: hour(100)}, want: 10},
			"everything, keep 0 is keep 1":   {req: store.PruneRequest{Before: hour(100), Keep: 0}, want: 10},
			"everything, negative keep":      {req: store.PruneRequest{Before: hour(100), Keep: -3}, want: 10},
			"everything, keep 3":             {req: store.PruneRequest{Before: hour(100), Keep: 3}, want: 6},
			"everything, keep more than any": {req: store.PruneRequest{Before: hour(100), Keep: 50}},
			"middle, keep 5":                 {req: store.PruneRequest{Before: hour(6), Keep: 5}, want: 4},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				before := pruneLedger(t, s)
				want := pruned(before, tc.req)
				if int64(len(want)) != tc.want {
					t.Fatalf("test table: the rule deletes %v, the table says %d runs", want, tc.want)
				}
				dry := tc.req
				dry.DryRun = true
				res, err := s.Prune(ctx, dry)
				if err != nil {
					t.Fatalf("Prune (dry run): %v", err)
				}
				if res.Runs != tc.want {
					t.Errorf("Prune (dry run) = %d runs, want %d", res.Runs, tc.want)
				}
				if got := allRuns(t, s); len(got) != len(before) {
					t.Fatalf("a dry run deleted %d runs", len(before)-len(got))
				}
				res, err = s.Prune(ctx, tc.req)
				if err != nil {
					t.Fatalf("Prune: %v", err)
				}
				if res.Runs != tc.want {
					t.Errorf("Prune = %d runs, want %d", res.Runs, tc.want)
				}
				if gone := deletedSince(t, s, before); !slices.Equal(gone, want) {
					t.Errorf("Prune deleted %v, want %v", gone, want)
				}
			})
		}
	})
}

// Pruning a slot's succeeded run does not make the slot missed again.
func TestPruneKeepsSlotsDone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		run := store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0}
		done := mustClaim(t, s, run)
		finish(t, s, done, store.StatusSucceeded, t0.Add(time.Minute))
		failed := mustClaim(t, s, store.Run{Task: "backup", Slot: t0.Add(time.Hour), Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, failed, store.StatusFailed, t0.Add(time.Hour))
		// The latest run holds the latest slot (ls's LAST SLOT, which prune
		// keeps), so the two before it go.
		latest := mustClaim(t, s, store.Run{Task: "backup", Slot: t0.Add(2 * time.Hour), Trigger: store.TriggerSchedule, StartedAt: t0.Add(2 * time.Hour)})
		finish(t, s, latest, store.StatusSucceeded, t0.Add(2*time.Hour))
		if res, err := s.Prune(ctx, store.PruneRequest{Before: t0.Add(24 * time.Hour)}); err != nil || res.Runs != 2 {
			t.Fatalf("Prune = %+v, %v; want 2 runs", res, err)
		}
		refused := func(step string) {
			t.Helper()
			res := claim(t, s, store.ClaimRequest{Run: run})
			if res.Claimed || res.Run.ID != done || res.Run.Status != store.StatusSucceeded ||
				res.Run.Task != "backup" || !res.Run.Slot.Equal(t0) {
				t.Errorf("%s: claim of the pruned succeeded slot = %+v, want refused, held by run %d", step, res, done)
			}
		}
		refused("after prune")
		// A failed slot whose runs are pruned is free, as it was.
		if res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: t0.Add(time.Hour),
			Trigger: store.TriggerReplay, StartedAt: t0}}); !res.Claimed {
			t.Errorf("claim of the pruned failed slot refused: %+v", res)
		}
		// Forced, it runs; its failure does not undo the pruned success.
		forced := claim(t, s, store.ClaimRequest{Run: run, Force: true})
		if !forced.Claimed {
			t.Fatalf("forced claim refused: %+v", forced)
		}
		finish(t, s, forced.Run.ID, store.StatusFailed, t0.Add(3*time.Hour))
		refused("after a failed forced run")
	})
}

// The file gives the space of pruned runs back.
func TestPruneShrinksSQLiteFile(t *testing.T) {
	s, path := newLedger(t)
	ctx := t.Context()
	tail := makeBytes(16 << 10)
	for i := range 300 {
		at := t0.Add(time.Duration(i) * time.Minute)
		id := mustClaim(t, s, store.Run{Task: "backup", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
		if err := s.Finish(ctx, id, store.Outcome{Status: store.StatusSucceeded, EndedAt: at.Add(time.Second),
			StdoutTail: tail, StderrTail: tail}); err != nil {
			t.Fatal(err)
		}
	}
	size := func() int64 {
		t.Helper()
		var total int64
		for _, p := range []string{path, path + "-wal"} {
			fi, err := os.Stat(p)
			if err == nil {
				total += fi.Size()
			}
		}
		return total
	}
	before := size()
	res, err := s.Prune(ctx, store.PruneRequest{Before: t0.Add(24 * time.Hour), Keep: 10})
	if err != nil || res.Runs != 290 {
		t.Fatalf("Prune = %+v, %v; want 290 runs", res, err)
	}
	after := size()
	t.Logf("ledger and WAL: %d bytes before, %d after", before, after)
	if after > before/10 {
		t.Errorf("ledger and WAL: %d bytes before pruning 290 of 300 runs, %d after", before, after)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ledger after VACUUM: %v, %v; want mode 0600", fi.Mode(), err)
	}
	if got := allRuns(t, s); len(got) != 10 {
		t.Errorf("%d runs left, want 10", len(got))
	}
}

// A dry run given the records the caller adds before the real prune
// (Adding) counts what that prune deletes once they are added: they are the
// newest runs of their task, and count among the --keep kept.
func TestPruneDryRunCountsAdded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		tests := map[string]struct {
			keep   int
			adding map[string]int
		}{
			"nothing added":                   {keep: 1},
			"one added, keep 1":               {keep: 1, adding: map[string]int{"a": 1, "b": 1}},
			"fewer added than kept":           {keep: 4, adding: map[string]int{"a": 2}},
			"as many added as kept":           {keep: 3, adding: map[string]int{"a": 3, "d": 3}},
			"more added than kept":            {keep: 2, adding: map[string]int{"a": 5, "c": 5}},
			"added to a task with no run yet": {keep: 1, adding: map[string]int{"new": 2}},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				pruneLedger(t, s)
				for i := range 2 { // duplicate fires of a's last slot: not counted among the kept
					at := hour(9).Add(time.Duration(10+i) * time.Minute)
					if _, err := s.AddRun(ctx, store.Run{Task: "a", Slot: hour(9), Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
						ExitCode: intp(0), Attempt: 1, StartedAt: at, EndedAt: at, Error: "duplicate fire of slot"}); err != nil {
						t.Fatal(err)
					}
				}
				// The added records are expired and paused in turn, the
				// first expired: LatestRan counts only the expired ones.
				addingRan, addingLast, addingLastPaused := map[string]int{}, map[string]time.Time{}, map[string]time.Time{}
				for task, n := range tc.adding {
					addingRan[task], addingLast[task], addingLastPaused[task] = (n+1)/2, hour(-300), hour(-301)
				}
				req := store.PruneRequest{Before: hour(100), Keep: tc.keep, DryRun: true, Adding: tc.adding, AddingRan: addingRan,
					AddingLast: addingLast, AddingLastPaused: addingLastPaused}
				dry, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatalf("Prune (dry run): %v", err)
				}
				for task, n := range tc.adding {
					for i := range n {
						status := []string{store.StatusExpired, store.StatusPaused}[i%2]
						if _, err := s.AddRun(ctx, store.Run{Task: task, Slot: hour(-300 - i), Trigger: store.TriggerReplay,
							Status: status, Attempt: 1, StartedAt: hour(200), EndedAt: hour(200)}); err != nil {
							t.Fatal(err)
						}
					}
				}
				before := allRuns(t, s)
				req.DryRun, req.Adding, req.AddingRan, req.AddingLast, req.AddingLastPaused = false, nil, nil, nil, nil
				want := pruned(before, req)
				res, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatalf("Prune: %v", err)
				}
				if res.Runs != int64(len(want)) || dry.Runs != res.Runs {
					t.Errorf("dry run counted %d, Prune deleted %d, the rule %d", dry.Runs, res.Runs, len(want))
				}
			})
		}
	})
}

// The latest run Prune always keeps is the one ls shows (Tasks): the
// records of duplicate fires newer than it (skipped, exit 0: they ran and
// settled nothing) are not it, nor do they count among the --keep newest.
// A failed run followed by a duplicate fire's record stays, and so stays
// the task's latest, its failure still shown.
func TestPruneKeepsTheLatestAsListed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		tests := map[string]struct {
			keep int
			want int64 // deleted, as a check of the model
		}{
			"keep 1": {keep: 1, want: 2},
			"keep 2": {keep: 2, want: 1},
			"keep 3": {keep: 3, want: 0},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				// Task t: a slot that succeeded; a lock skip (exit 75: not a
				// duplicate) of the next, then its failed run; last, two
				// duplicate fires of that slot.
				add := func(r store.Run) int64 {
					t.Helper()
					r.Task, r.Trigger, r.Attempt, r.EndedAt = "t", store.TriggerSchedule, 1, r.StartedAt.Add(time.Minute)
					id, err := s.AddRun(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					return id
				}
				done := mustClaim(t, s, store.Run{Task: "t", Slot: hour(0), Trigger: store.TriggerSchedule, StartedAt: hour(0)}) // registers t
				finish(t, s, done, store.StatusSucceeded, hour(0).Add(time.Minute))
				add(store.Run{Slot: hour(1), Status: store.StatusSkipped, ExitCode: intp(75), StartedAt: hour(1), Error: "lock held"})
				failed := add(store.Run{Slot: hour(1), Status: store.StatusFailed, ExitCode: intp(1), StartedAt: hour(1).Add(time.Minute)})
				for i := range 2 {
					add(store.Run{Slot: hour(1), Status: store.StatusSkipped, ExitCode: intp(0), StartedAt: hour(1).Add(time.Duration(2+i) * time.Minute),
						Error: "duplicate fire of slot"})
				}
				before, want := pruneByTheRule(t, s, hour(100), tc.keep, tc.want)
				if gone := deletedSince(t, s, before); !slices.Equal(gone, want) {
					t.Errorf("Prune deleted %v, want %v", gone, want)
				}
				tasks, err := s.Tasks(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(tasks) != 1 || tasks[0].Latest == nil || tasks[0].Latest.ID != failed || tasks[0].Latest.Status != store.StatusFailed {
					t.Errorf("after the prune, Tasks = %+v; want the failed run %d the latest", tasks, failed)
				}
			})
		}
	})
}

// TestPruneKeepsWhatHidesAnOlderExpiry: the run ls shows is a backfill of
// an older slot, and the fire of the latest slot keeps a newer record, an
// expiry of a slot between them, hidden (Tasks). Prune keeps both, in
// every batch (each reads its cut again): deleting the fire would let the
// expiry show, and the failure go from ls and metrics. Its dry run counts
// the same; a second prune deletes nothing.
func TestPruneKeepsWhatHidesAnOlderExpiry(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		ran := func(slot time.Time, trigger, status string) int64 {
			t.Helper()
			id := mustClaim(t, s, store.Run{Task: "u", Slot: slot, Trigger: trigger, StartedAt: hour(10)})
			finish(t, s, id, status, hour(10).Add(time.Minute))
			return id
		}
		first := ran(hour(7), store.TriggerSchedule, store.StatusFailed)
		fire := ran(hour(10), store.TriggerSchedule, store.StatusFailed)
		backfill := ran(hour(8), store.TriggerBackfill, store.StatusFailed)
		if _, err := s.AddRun(ctx, store.Run{Task: "u", Slot: hour(9), Trigger: store.TriggerReplay, Status: store.StatusExpired,
			Reason: store.ReasonMaxAge, Attempt: 1, StartedAt: hour(11), EndedAt: hour(11)}); err != nil {
			t.Fatal(err)
		}
		req := store.PruneRequest{Before: hour(100), Batch: 1, DryRun: true}
		dry, err := s.Prune(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		before := allRuns(t, s)
		req.DryRun = false
		res, err := s.Prune(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// The backfill of an older slot is not the latest (the fire of the
		// newest slot is: NotAnOlderSlotSQL), but the newest run that ran
		// (the expiry after it is none), and stays.
		if gone := deletedSince(t, s, before); !slices.Equal(gone, []int64{first}) || res.Runs != 1 || dry.Runs != 1 {
			t.Errorf("Prune deleted %v (%d; dry run %d), want run %d: not the fire %d, nor the backfill %d, the newest that ran", gone, res.Runs, dry.Runs, first, fire, backfill)
		}
		tasks, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 1 || tasks[0].Latest == nil || tasks[0].Latest.ID != fire {
			t.Errorf("after the prune, Tasks = %+v; want the failed fire %d the latest, not the expiry of 09:00", tasks, fire)
		}
		if again, err := s.Prune(ctx, req); err != nil || again.Runs != 0 {
			t.Errorf("a second prune = %+v, %v; want nothing deleted", again, err)
		}
	})
}
