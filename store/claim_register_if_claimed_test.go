package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestDuplicateClaimKeepsTheRegistration: a scheduled fire's claim with
// RegisterIfClaimed that finds its slot held (another host's fire claimed
// it between this fire's look for a holder and its claim, on a shared
// ledger) leaves the task's registration as it is when it registers the
// same schedule and zone: the fire that runs the slot registers its line.
// Before, Register was upserted in the claim's transaction before the
// holder was known, so a stale second copy of a line took over what the
// next scan replayed. A change of schedule or zone is registered all the
// same (its new schedule counts from this fire), as is any granted claim;
// without RegisterIfClaimed a refused claim registers as before.
func TestDuplicateClaimKeepsTheRegistration(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			schedule, tz string
			free         bool // the slot is nobody's: the claim is granted
			always       bool // no RegisterIfClaimed
			registers    bool
		}{
			"held, same schedule and zone":    {schedule: "0 * * * *", tz: "UTC"},
			"held, schedule changed":          {schedule: "30 * * * *", tz: "UTC", registers: true},
			"held, zone changed":              {schedule: "0 * * * *", tz: "Europe/Paris", registers: true},
			"free, same schedule and zone":    {schedule: "0 * * * *", tz: "UTC", free: true, registers: true},
			"held, without RegisterIfClaimed": {schedule: "0 * * * *", tz: "UTC", always: true, registers: true},
		}
		s := be.fresh(t)
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				old := store.Task{Name: task, Schedule: "0 * * * *", TZ: "UTC", Argv: []string{"old"}, Replay: "all",
					RegisteredAt: t0, UpdatedAt: t0}
				if err := s.UpsertTask(t.Context(), old); err != nil {
					t.Fatal(err)
				}
				slot := t0.Add(2 * time.Hour)
				if !tc.free {
					storetest.MustClaim(t, s, store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule,
						StartedAt: slot, Host: "other", PID: 1})
				}
				reg := old
				reg.Schedule, reg.TZ, reg.Argv, reg.UpdatedAt = tc.schedule, tc.tz, []string{"new"}, slot
				run := store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot.Add(time.Second), Host: "h", PID: 2}
				got := storetest.Claim(t, s, store.ClaimRequest{Run: run, Register: &reg, RegisterIfClaimed: !tc.always})
				if got.Claimed != tc.free {
					t.Fatalf("claim: claimed %v, holder %+v; want claimed %v", got.Claimed, got.Run, tc.free)
				}
				cur, err := s.Task(t.Context(), task)
				if err != nil {
					t.Fatal(err)
				}
				want := old
				if tc.registers {
					want = reg
				}
				if !slices.Equal(cur.Argv, want.Argv) || cur.Schedule != want.Schedule || cur.TZ != want.TZ {
					t.Errorf("task after the claim: schedule %q zone %q argv %q; want %q %q %q",
						cur.Schedule, cur.TZ, cur.Argv, want.Schedule, want.TZ, want.Argv)
				}
			})
		}
	})
}
