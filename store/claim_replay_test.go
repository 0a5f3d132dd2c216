package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestReplayClaimRefusesAnExpiredSlot: a replay's claim refuses a slot
// whose latest record (skips aside) is expired, naming that record: it was
// given up after the scan read it (forget, a schedule change). A slot run
// again after its expiry (a failed backfill, which scan --retry-failed
// replays) is claimed, and so is an expired slot by a fire or a backfill;
// a daemon's fire (which sets Replay) is refused it, as a replay is. A
// replay's claim of a task the ledger no longer holds (purged since the
// scan read it) is refused as Gone, and registers nothing.
func TestReplayClaimRefusesAnExpiredSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		code := 3
		expired := func(task string) store.Run {
			return store.Run{Task: task, Slot: t0, Trigger: store.TriggerReplay, Status: store.StatusExpired,
				StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour), Reason: store.ReasonRetired}
		}
		tests := map[string]struct {
			prior   []store.Run
			trigger string
			replay  bool
			claimed bool
			gone    bool // its task not in the ledger (purged): refused, Gone
		}{
			"replay of a slot of a task not in the ledger": {
				trigger: store.TriggerReplay, replay: true, gone: true,
			},
			"replay of an expired slot": {
				prior: []store.Run{expired("a")}, trigger: store.TriggerReplay, replay: true,
			},
			"replay of an expired slot skipped since": {
				prior: []store.Run{expired("b"), {Task: "b", Slot: t0, Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
					StartedAt: t0.Add(2 * time.Hour), EndedAt: t0.Add(2 * time.Hour), ExitCode: &code}},
				trigger: store.TriggerReplay, replay: true,
			},
			"replay of an expired slot that failed since": {
				prior: []store.Run{expired("c"), {Task: "c", Slot: t0, Trigger: store.TriggerBackfill, Status: store.StatusFailed,
					StartedAt: t0.Add(2 * time.Hour), EndedAt: t0.Add(2 * time.Hour), ExitCode: &code}},
				trigger: store.TriggerReplay, replay: true, claimed: true,
			},
			"replay of a missed slot": {
				trigger: store.TriggerReplay, replay: true, claimed: true,
			},
			"fire of an expired slot": {
				prior: []store.Run{expired("e")}, trigger: store.TriggerSchedule, claimed: true,
			},
			"daemon's fire of an expired slot": {
				prior: []store.Run{expired("g")}, trigger: store.TriggerSchedule, replay: true,
			},
			"backfill of an expired slot": {
				prior: []store.Run{expired("f")}, trigger: store.TriggerBackfill, claimed: true,
			},
		}
		s := be.open(t, be.ledger(t))
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				task := name
				for _, r := range tc.prior {
					task = r.Task
				}
				if !tc.gone { // a replay's task is in the ledger: its claim registers nothing
					if err := s.UpsertTask(t.Context(), store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range tc.prior {
					if _, err := s.AddRuns(t.Context(), []store.Run{r}); err != nil {
						t.Fatal(err)
					}
				}
				run := store.Run{Task: task, Slot: t0, Trigger: tc.trigger, StartedAt: t0.Add(3 * time.Hour), Host: "h", PID: 1}
				got := storetest.Claim(t, s, store.ClaimRequest{Run: run, Replay: tc.replay})
				switch {
				case got.Gone != tc.gone:
					t.Fatalf("gone = %v, want %v (%+v)", got.Gone, tc.gone, got)
				case tc.gone:
					if _, err := s.Task(t.Context(), task); !errors.Is(err, store.ErrNotFound) {
						t.Errorf("after the refused claim, task %s: %v; want not found (not registered)", task, err)
					}
				case got.Claimed != tc.claimed:
					t.Fatalf("claimed = %v, want %v (%+v)", got.Claimed, tc.claimed, got.Run)
				case !got.Claimed && (got.Run.Status != store.StatusExpired || got.Run.Reason != store.ReasonRetired || got.Run.ID == 0):
					t.Errorf("refused claim names %+v; want the expired record", got.Run)
				}
			})
		}
	})
}
