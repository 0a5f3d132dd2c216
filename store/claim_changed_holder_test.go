package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestChangedClaimNamesTheSlotsHolderFirst: a scan's replay's claim of a
// task registered again since read (ClaimRequest.Updated) is refused for
// its slot's holder first, as Changed only for a slot nobody holds, on
// both backends alike: a slot running (another host's replay, a fire)
// names its run, which ends the task's replays in this scan (S12); a slot
// that succeeded, or was given up, names that record (done, the replays go
// on to the next slot, whose claim is refused as Changed). PostgreSQL read
// Changed before the holder: a slot held by a run still running was left
// for the next scan as a registration changed, its holder unnamed.
func TestChangedClaimNamesTheSlotsHolderFirst(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.open(t, be.ledger(t))
		ctx := t.Context()
		reg := store.Task{Name: "t", Schedule: "0 * * * *", Argv: []string{"old"}, RegisteredAt: t0, UpdatedAt: t0.Add(time.Second)}
		if err := s.UpsertTask(ctx, reg); err != nil {
			t.Fatal(err)
		}
		read, err := s.Task(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		running := storetest.Claim(t, s, store.ClaimRequest{Run: store.Run{Task: "t", Slot: at(1), Trigger: store.TriggerReplay,
			StartedAt: at(5), Host: "other", PID: 7}})
		done := storetest.Claim(t, s, store.ClaimRequest{Run: store.Run{Task: "t", Slot: at(2), Trigger: store.TriggerSchedule,
			StartedAt: at(2), Host: "h", PID: 8}})
		if !running.Claimed || !done.Claimed {
			t.Fatalf("setup claims: %+v, %+v", running, done)
		}
		if err := s.Finish(ctx, done.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: new(int), EndedAt: at(2).Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		expired, err := s.AddRun(ctx, store.Run{Task: "t", Slot: at(3), Trigger: store.TriggerReplay, Status: store.StatusExpired,
			StartedAt: at(5), EndedAt: at(5), Reason: "max-age"})
		if err != nil {
			t.Fatal(err)
		}
		reg.Argv, reg.UpdatedAt = []string{"new"}, at(5).Add(123*time.Millisecond)
		if err := s.UpsertTask(ctx, reg); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name   string
			slot   time.Time
			id     int64
			status string
		}{
			{"a slot running", at(1), running.Run.ID, store.StatusRunning},
			{"a slot succeeded", at(2), done.Run.ID, store.StatusSucceeded},
			{"a slot given up", at(3), expired, store.StatusExpired},
			{"a slot nobody holds", at(4), 0, ""},
		} {
			run := store.Run{Task: "t", Slot: c.slot, Trigger: store.TriggerReplay, StartedAt: at(5), Host: "h", PID: 1}
			got := storetest.Claim(t, s, store.ClaimRequest{Run: run, Replay: true, RefusePaused: true,
				Registered: read.RegisteredAt, Updated: read.UpdatedAt})
			switch {
			case got.Claimed:
				t.Errorf("%s: %+v; want refused", c.name, got)
			case c.id == 0 && (!got.Changed || got.Run.ID != 0):
				t.Errorf("%s: %+v; want refused as changed", c.name, got)
			case c.id != 0 && (got.Changed || got.Run.ID != c.id || got.Run.Status != c.status):
				t.Errorf("%s: %+v; want refused for its holder, run %d %s, not as changed", c.name, got, c.id, c.status)
			}
		}
		if runs, err := s.History(ctx, store.HistoryFilter{Task: "t", Limit: 10}); err != nil || len(runs) != 3 {
			t.Errorf("the refused claims wrote runs: %d runs, %v; want the 3 of the setup", len(runs), err)
		}
	})
}
