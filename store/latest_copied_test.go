package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// importer is a ledger that takes the runs of another (catchup migrate
// copies into PostgreSQL only): each copied run is recorded with its
// origin, under a new id, higher than every run recorded before.
type importer interface {
	Import(ctx context.Context, origin string, tasks []store.Task, runs []store.Run) (int, error)
}

// olderRuns are the ids of the runs olderSlotsLater records.
type olderRuns struct {
	fire     int64   // this ledger's run of 20:00, which succeeded
	backfill int64   // a failed backfill of 17:00 right after it (0: none)
	older    []int64 // 18:00 succeeded, 19:00 failed
}

// olderSlotsLater records, after this ledger's run of the slot at 20:00
// (host b), and a backfill of 17:00 when backfill, the runs of two older
// slots (18:00 succeeded, 19:00 failed) with higher ids: copied from
// another ledger when copied (catchup migrate brings host a's ledger in),
// else recorded here (backfills of older slots after the fire). A backend
// that takes no copies skips a copied case.
func olderSlotsLater(t *testing.T, s store.Store, copied, backfill bool) olderRuns {
	t.Helper()
	ctx := t.Context()
	h := time.Hour
	var out olderRuns
	out.fire = mustClaim(t, s, store.Run{Task: "nightly", Slot: t0.Add(20 * h), Trigger: store.TriggerSchedule, StartedAt: t0.Add(20 * h)})
	finish(t, s, out.fire, store.StatusSucceeded, t0.Add(20*h+time.Minute))
	if backfill {
		out.backfill = mustClaim(t, s, store.Run{Task: "nightly", Slot: t0.Add(17 * h), Trigger: store.TriggerBackfill, StartedAt: t0.Add(20 * h)})
		finish(t, s, out.backfill, store.StatusFailed, t0.Add(20*h+2*time.Minute))
	}
	older := []store.Run{
		{ID: 1, Slot: t0.Add(18 * h), Status: store.StatusSucceeded, ExitCode: intp(0)},
		{ID: 2, Slot: t0.Add(19 * h), Status: store.StatusFailed, ExitCode: intp(1)},
	}
	for i := range older {
		r := &older[i]
		r.Task, r.Trigger, r.Attempt, r.Host = "nightly", store.TriggerSchedule, 1, "hosta"
		r.StartedAt, r.EndedAt = r.Slot, r.Slot.Add(time.Minute)
	}
	before := allRuns(t, s)
	if !copied {
		for _, r := range older {
			r.ID = 0
			id, err := s.AddRun(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			out.older = append(out.older, id)
		}
		return out
	}
	im, ok := s.(importer)
	if !ok {
		t.Skip("this ledger takes no copied runs (catchup migrate copies into PostgreSQL only)")
	}
	if n, err := im.Import(ctx, "/var/lib/hosta/ledger.db", nil, older); err != nil || n != len(older) {
		t.Fatalf("Import = %d, %v; want %d runs", n, err, len(older))
	}
	for id := range allRuns(t, s) {
		if _, ok := before[id]; !ok {
			out.older = append(out.older, id)
		}
	}
	slices.Sort(out.older)
	if len(out.older) != 2 || out.older[0] <= max(out.fire, out.backfill) {
		t.Fatalf("copied runs got ids %v, want two above this ledger's %d, %d", out.older, out.fire, out.backfill)
	}
	return out
}

// latestID is the id of a task's latest run in Tasks's answer, -1 for
// none, 0 for a task without one.
func latestID(all []store.TaskSummary, task string) int64 {
	for _, ts := range all {
		if ts.Task.Name == task {
			if ts.Latest == nil {
				return 0
			}
			return ts.Latest.ID
		}
	}
	return -1
}

// TestLatestPassesAnOlderSlot: a record of a slot older than the latest
// slot of the task's records is not the task's latest (Tasks, LatestRan,
// LatestRans), whatever its id, whether recorded here (a backfill of an
// older slot after a newer fire) or copied in from another ledger
// (catchup migrate): the latest is the latest record of the newest slot
// (or one without a slot), so a ledger and its migrated copy agree.
// Before, a SQLite ledger took the backfill's failure of 19:00 for the
// latest by id, and its PostgreSQL copy the fire of 20:00 (a copy of an
// older slot never was), so ls, catchup_last_run_status and the recipes'
// alert told one story on the host and another on the fleet's ledger.
func TestLatestPassesAnOlderSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, copied := range []bool{false, true} {
			name := map[bool]string{false: "recorded here", true: "copied in"}[copied]
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				runs := olderSlotsLater(t, s, copied, false)
				want := runs.fire // 20:00, not the 19:00 failure recorded after it
				all, err := s.Tasks(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := latestID(all, "nightly"); got != want {
					t.Errorf("Tasks' latest = run %d, want run %d", got, want)
				}
				if r, err := s.LatestRan(ctx, "nightly"); err != nil || r == nil || r.ID != want {
					t.Errorf("LatestRan = %+v, %v; want run %d", r, err, want)
				}
				rans, err := s.LatestRans(ctx, []string{"nightly"})
				if err != nil || rans["nightly"] == nil || rans["nightly"].ID != want {
					t.Errorf("LatestRans = %+v, %v; want run %d", rans["nightly"], err, want)
				}
				last, err := s.LatestListedSlot(ctx, "nightly")
				if err != nil || !last.Equal(t0.Add(20*time.Hour)) {
					t.Errorf("LatestListedSlot = %v, %v; want the fire's slot", last, err)
				}
			})
		}
	})
}
