package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestRegisteredClaimAndRecordsRefuseANewRegistration: a claim given the
// registration its caller read (ClaimRequest.Registered: a scan's replay,
// a backfill) and AddRunsOf refuse a task the ledger no longer holds, or
// holds registered after it (purged, then registered again by a fire):
// the claim as Gone, registering nothing, the records with ErrGone,
// writing none. The registration read, or one moved earlier since (a
// backdate), is granted.
func TestRegisteredClaimAndRecordsRefuseANewRegistration(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			row     time.Time // the task row's registration now; zero: no row
			trigger string
			gone    bool
		}{
			"replay, task as read":             {row: t0, trigger: store.TriggerReplay},
			"replay, registered earlier since": {row: t0.Add(-time.Hour), trigger: store.TriggerReplay},
			"replay, registered again since":   {row: t0.Add(time.Hour), trigger: store.TriggerReplay, gone: true},
			"backfill, task as read":           {row: t0, trigger: store.TriggerBackfill},
			"backfill, task purged":            {trigger: store.TriggerBackfill, gone: true},
			"backfill, registered again since": {row: t0.Add(time.Hour), trigger: store.TriggerBackfill, gone: true},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				if !tc.row.IsZero() {
					if err := s.UpsertTask(t.Context(), store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: tc.row, UpdatedAt: tc.row}); err != nil {
						t.Fatal(err)
					}
				}
				slot := t0.Add(2 * time.Hour)
				rec := store.Run{Task: task, Slot: slot.Add(time.Hour), Trigger: store.TriggerReplay, Status: store.StatusExpired,
					StartedAt: t0.Add(3 * time.Hour), EndedAt: t0.Add(3 * time.Hour), Reason: store.ReasonMaxAge}
				ids, err := s.AddRunsOf(t.Context(), store.Of{Registered: t0}, []store.Run{rec})
				switch {
				case tc.gone && !errors.Is(err, store.ErrGone):
					t.Errorf("AddRunsOf: %v, ids %v; want ErrGone", err, ids)
				case !tc.gone && (err != nil || len(ids) != 1 || ids[0] == 0):
					t.Errorf("AddRunsOf: %v, ids %v; want the record added", err, ids)
				}
				run := store.Run{Task: task, Slot: slot, Trigger: tc.trigger, StartedAt: t0.Add(3 * time.Hour), Host: "h", PID: 1}
				got := storetest.Claim(t, s, store.ClaimRequest{Run: run, Replay: tc.trigger == store.TriggerReplay, Registered: t0})
				if got.Gone != tc.gone || got.Claimed == tc.gone {
					t.Fatalf("claim: gone %v, claimed %v; want gone %v", got.Gone, got.Claimed, tc.gone)
				}
				hist, err := s.History(t.Context(), store.HistoryFilter{Task: task, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: 0, false: 2}[tc.gone]; len(hist) != want {
					t.Errorf("the ledger holds %d runs of %s: %+v; want %d", len(hist), task, hist, want)
				}
				cur, err := s.Task(t.Context(), task)
				switch {
				case tc.row.IsZero() && !errors.Is(err, store.ErrNotFound):
					t.Errorf("task %s after the refused claim: %v; want not found (not registered)", task, err)
				case !tc.row.IsZero() && (err != nil || !cur.RegisteredAt.Equal(tc.row)):
					t.Errorf("task %s after: %+v, %v; want its row as it was", task, cur, err)
				}
			})
		}
	})
}
