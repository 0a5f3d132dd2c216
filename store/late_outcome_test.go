package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// An outcome that comes after its run was marked interrupted (taken for
// dead: a frozen or cut-off host whose slot another host replayed) lands on
// the run, and its error keeps the interruption: explain and history must
// not lose that the slot may have run twice. Repeated (a reply lost on the
// way back), it records the same.
func TestLateOutcomeKeepsTheInterruption(t *testing.T) {
	const why = "no heartbeat from h1 for longer than the lease"
	tests := map[string]struct {
		out  store.Outcome
		want string
	}{
		"late success": {out: store.Outcome{Status: store.StatusSucceeded, ExitCode: intp(0)},
			want: store.LateOutcomeNote + why},
		"late failure with its own error": {out: store.Outcome{Status: store.StatusFailed, ExitCode: intp(3), Error: "exit 3"},
			want: "exit 3; " + store.LateOutcomeNote + why},
		"stopped on its lost lease": {out: store.Outcome{Status: store.StatusInterrupted, Signal: 15, Error: "stopped: lease lost"},
			want: "stopped: lease lost; " + store.LateOutcomeNote + why},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h1"})
				if ok, err := s.Interrupt(ctx, id, t0.Add(2*time.Minute), why); err != nil || !ok {
					t.Fatalf("Interrupt = %v, %v", ok, err)
				}
				tc.out.EndedAt = t0.Add(3 * time.Minute)
				for i := range 2 {
					if err := s.Finish(ctx, id, tc.out); err != nil {
						t.Fatal(err)
					}
					if r := getRun(t, s, id); r.Status != tc.out.Status || r.Error != tc.want {
						t.Errorf("after Finish #%d the run reads %s, error %q; want %s, error %q", i+1, r.Status, r.Error, tc.out.Status, tc.want)
					}
				}
			})
		}
		t.Run("outcome of a running run", func(t *testing.T) {
			s := be.fresh(t)
			id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
			if err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusFailed, ExitCode: intp(1), EndedAt: t0, Error: "exit 1"}); err != nil {
				t.Fatal(err)
			}
			if r := getRun(t, s, id); r.Error != "exit 1" {
				t.Errorf("error %q, want only the outcome's own", r.Error)
			}
		})
	})
}

// A heartbeat of a run that another host marked interrupted reports the
// lost lease (a shared ledger; a local one writes no heartbeats).
func TestHeartbeatOfARunTakenForDead(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h1"})
		if err := s.Heartbeat(ctx, id, t0.Add(time.Second)); err != nil {
			t.Fatalf("heartbeat of a running run: %v", err)
		}
		if _, err := s.Interrupt(ctx, id, t0.Add(2*time.Minute), "no heartbeat"); err != nil {
			t.Fatal(err)
		}
		err := s.Heartbeat(ctx, id, t0.Add(3*time.Minute))
		if s.Shared() != errors.Is(err, store.ErrNotRunning) {
			t.Errorf("heartbeat after the interruption: %v; want ErrNotRunning: %v", err, s.Shared())
		}
	})
}
