package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPruneRefusesATaskRetiredSinceRead: Prune given the tasks as its
// caller read them (PruneRequest.Of) refuses, in its transactions, a task
// retired since (`catchup forget`, given Live: ErrRetired) or no longer in
// the ledger as read (purged, then registered again: ErrGone), as
// AddRunsOf and SetSettledOf do: its watermark does not move and none of
// its runs goes, and PruneResult.Refused says why. A retirement that
// commits after a batch of the task was deleted stops its batches there.
// A task not in Of, or read as being retired (not Live), is pruned as
// before, and so is one read live and still so.
func TestPruneRefusesATaskRetiredSinceRead(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		cut := t0.Add(100 * time.Hour)
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		// Each task: registered at reg, four runs ended long before the
		// cut (three of them go unless the task is left).
		add := func(task string, reg time.Time) {
			t.Helper()
			if err := s.UpsertTask(ctx, store.Task{Name: task, Schedule: "0 * * * *", TZ: "UTC", RegisteredAt: reg,
				UpdatedAt: reg, SettledThrough: reg.Add(-time.Second)}); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 4; i++ {
				at := reg.Add(time.Duration(i) * time.Hour)
				finish(t, s, mustClaim(t, s, store.Run{Task: task, Slot: at, Trigger: store.TriggerSchedule, StartedAt: at, Host: "h"}),
					store.StatusSucceeded, at.Add(time.Minute))
			}
		}
		tests := map[string]struct {
			of      *store.Of // nil: not in Of
			retire  bool      // retired after it was read, before Prune
			again   bool      // purged and registered again (at hour 50) after it was read
			late    bool      // retired after its first batch
			refused error
			left    int // runs left of the four
		}{
			"a-late":        {of: &store.Of{Registered: t0, Live: true}, late: true, refused: store.ErrRetired, left: 3},
			"live":          {of: &store.Of{Registered: t0, Live: true}, left: 1},
			"retired":       {of: &store.Of{Registered: t0, Live: true}, retire: true, refused: store.ErrRetired, left: 4},
			"again":         {of: &store.Of{Registered: t0, Live: true}, again: true, refused: store.ErrGone, left: 4},
			"being retired": {of: &store.Of{Registered: t0}, retire: true, left: 1},
			"unchecked":     {retire: true, left: 1},
		}
		req := store.PruneRequest{Before: cut, Batch: 1, Of: map[string]store.Of{}}
		settled := map[string]time.Time{}
		for name, tc := range tests {
			add(name, t0)
			if tc.of != nil {
				req.Of[name] = *tc.of
			}
			switch {
			case tc.retire:
				if _, err := s.Forget(ctx, name, hour(90), false); err != nil {
					t.Fatal(err)
				}
			case tc.again:
				if _, err := s.Forget(ctx, name, hour(40), true); err != nil {
					t.Fatal(err)
				}
				add(name, hour(50))
			}
			cur, err := s.Task(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			settled[name] = cur.SettledThrough
		}
		retired := false
		req.Batched = func(int64) {
			if !retired { // the first batch is a-late's (tasks go in name order)
				retired = true
				if _, err := s.Forget(ctx, "a-late", hour(90), false); err != nil {
					t.Errorf("forget a-late: %v", err)
				}
			}
		}
		res, err := s.Prune(ctx, req)
		if err != nil {
			t.Fatalf("Prune: %v", err)
		}
		for name, tc := range tests {
			if got := res.Refused[name]; !errors.Is(got, tc.refused) || tc.refused == nil && got != nil {
				t.Errorf("task %s: refused %v; want %v", name, got, tc.refused)
			}
			hist, err := s.History(ctx, store.HistoryFilter{Task: name, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != tc.left {
				t.Errorf("task %s: %d runs left; want %d", name, len(hist), tc.left)
			}
			cur, err := s.Task(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			want := cut
			if tc.refused != nil && !tc.late {
				want = settled[name] // refused before the watermarks moved
			}
			if !cur.SettledThrough.Equal(want) {
				t.Errorf("task %s: watermark %s; want %s", name, cur.SettledThrough.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339))
			}
		}
		if !retired {
			t.Error("no batch was deleted: a-late was never retired")
		}
	})
}
