package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLatestPassesAnOlderCopy: a run that catchup migrate copied in is
// not the task's latest (Tasks, LatestRan, LatestRans) when a record of
// the task that could be (without a slot, or of its newest slot) started
// after it, whatever the ids: the host's runs of 09:00 and 10:00, copied
// after its switch to the shared ledger, where it ran at 11:00, get higher
// ids than that run. Before, the copy of 10:00 was the latest: a failure
// there showed where 11:00 had succeeded (a false alert), and its success
// where 11:00 had failed (a failure unseen); so did a copy of the newest
// slot's fire over the slot's rerun (--force) there. A copy that started
// last is the latest. Prune keeps the run shown (Keep 1), and the latest
// stays it.
func TestLatestPassesAnOlderCopy(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, tc := range []struct {
			name     string
			slot     time.Time // of every run (zero: none)
			copyLast bool      // a copied run started after the run of 11:00
		}{
			{name: "copies started before"},
			{name: "a copy started last", copyLast: true},
			{name: "copies of the newest slot", slot: t0.Add(8 * time.Hour)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				h := time.Hour
				task := store.Task{Name: "t", Source: "run", RegisteredAt: t0}
				if !tc.slot.IsZero() {
					task.Schedule, task.TZ = "0 8 * * *", "UTC"
				}
				if err := s.UpsertTask(ctx, task); err != nil {
					t.Fatal(err)
				}
				here, err := s.AddRun(ctx, store.Run{Task: "t", Slot: tc.slot, Trigger: store.TriggerManual, Status: store.StatusSucceeded, ExitCode: intp(0),
					Attempt: 1, Host: "hosta", StartedAt: t0.Add(11 * h), EndedAt: t0.Add(11*h + time.Minute)})
				if err != nil {
					t.Fatal(err)
				}
				copies := []store.Run{
					{ID: 1, Status: store.StatusSucceeded, ExitCode: intp(0), StartedAt: t0.Add(9 * h)},
					{ID: 2, Status: store.StatusFailed, ExitCode: intp(1), StartedAt: t0.Add(10 * h)},
				}
				if tc.copyLast {
					copies = append(copies, store.Run{ID: 3, Status: store.StatusFailed, ExitCode: intp(1), StartedAt: t0.Add(12 * h)})
				}
				for i := range copies {
					r := &copies[i]
					r.Task, r.Slot, r.Trigger, r.Attempt, r.Host, r.EndedAt = "t", tc.slot, store.TriggerManual, 1, "hosta", r.StartedAt.Add(time.Minute)
				}
				before := allRuns(t, s)
				im, ok := s.(importer)
				if !ok {
					t.Skip("this ledger takes no copied runs (catchup migrate copies into PostgreSQL only)")
				}
				if n, err := im.Import(ctx, "hosta:/var/lib/catchup/catchup.db", nil, copies); err != nil || n != len(copies) {
					t.Fatalf("Import = %d, %v; want %d runs", n, err, len(copies))
				}
				var copied []int64
				for id := range allRuns(t, s) {
					if _, ok := before[id]; !ok {
						copied = append(copied, id)
					}
				}
				slices.Sort(copied)
				want := here
				if tc.copyLast {
					want = copied[2]
				}
				latestIs(t, s, "before the prune", want)
				req := store.PruneRequest{Before: t0.Add(100 * h), Keep: 1, Batch: 1}
				if _, err := s.Prune(ctx, req); err != nil {
					t.Fatal(err)
				}
				if _, ok := allRuns(t, s)[want]; !ok {
					t.Fatalf("prune deleted run %d, the task's latest", want)
				}
				latestIs(t, s, "after the prune", want)
			})
		}
	})
}

// latestIs checks that task t's latest run is run want, as Tasks,
// LatestRan and LatestRans read it.
func latestIs(t *testing.T, s store.Store, when string, want int64) {
	t.Helper()
	ctx := t.Context()
	all, err := s.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := latestID(all, "t"); got != want {
		t.Errorf("%s, Tasks' latest = run %d, want run %d", when, got, want)
	}
	if r, err := s.LatestRan(ctx, "t"); err != nil || r == nil || r.ID != want {
		t.Errorf("%s, LatestRan = %+v, %v; want run %d", when, r, err, want)
	}
	rans, err := s.LatestRans(ctx, []string{"t"})
	if err != nil || rans["t"] == nil || rans["t"].ID != want {
		t.Errorf("%s, LatestRans = %+v, %v; want run %d", when, rans["t"], err, want)
	}
}
