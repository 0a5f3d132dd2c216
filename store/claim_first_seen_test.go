package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestClaimRegistersATaskFirstSeen: a fire's claim that neither registers
// nor names the registration it read (`catchup run` without --cron)
// registers a task the ledger does not hold as of the run's slot, also one
// purged after an earlier fire of it, and leaves a task it holds as it is
// (its registration, schedule and update untouched). The SQLite ledger
// asks before it inserts (the insert's compilation cost every fire more
// than the read): the answers must not change.
func TestClaimRegistersATaskFirstSeen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			held   bool // registered before the fire, at t0 with a schedule
			purged bool // fired once, then purged (forget --purge)
		}{
			"a task the ledger does not hold": {},
			"a task it holds":                 {held: true},
			"a task purged after a fire":      {held: true, purged: true},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				if tc.held {
					if err := s.UpsertTask(ctx, store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
						t.Fatal(err)
					}
				}
				slot := t0.Add(2 * time.Hour)
				if tc.purged {
					first := storetest.Claim(t, s, store.ClaimRequest{Run: store.Run{Task: task, Slot: slot.Add(-time.Hour),
						Trigger: store.TriggerSchedule, StartedAt: slot.Add(-time.Hour), Host: "h", PID: 1}})
					if !first.Claimed {
						t.Fatalf("first fire not claimed: %+v", first)
					}
					if err := s.Finish(ctx, first.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(-time.Hour)}); err != nil {
						t.Fatal(err)
					}
					if _, err := s.Forget(ctx, task, slot.Add(-time.Minute), true); err != nil {
						t.Fatal(err)
					}
				}
				got := storetest.Claim(t, s, store.ClaimRequest{Run: store.Run{Task: task, Slot: slot,
					Trigger: store.TriggerSchedule, StartedAt: slot.Add(time.Second), Host: "h", PID: 2}})
				if !got.Claimed {
					t.Fatalf("fire not claimed: %+v", got)
				}
				cur, err := s.Task(ctx, task)
				if err != nil {
					t.Fatalf("task %s after the fire: %v; want it registered", task, err)
				}
				want := store.Task{Name: task, RegisteredAt: slot, UpdatedAt: slot.Add(time.Second)}
				if tc.held && !tc.purged {
					want = store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: t0, UpdatedAt: t0}
				}
				if cur.Schedule != want.Schedule || !cur.RegisteredAt.Equal(want.RegisteredAt) ||
					!cur.UpdatedAt.Equal(want.UpdatedAt) || !cur.RetiredAt.IsZero() {
					t.Errorf("task %s after the fire: schedule %q, registered %v, updated %v, retired %v; "+
						"want schedule %q, registered %v, updated %v, not retired", task, cur.Schedule, cur.RegisteredAt,
						cur.UpdatedAt, cur.RetiredAt, want.Schedule, want.RegisteredAt, want.UpdatedAt)
				}
			})
		}
	})
}
