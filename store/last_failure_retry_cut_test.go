package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLastFailureIsNotARetryCut: a retry cut in its delay (store.ReasonRetryCut:
// found dead there after a power cut, or stopped by a signal) ran nothing, so
// it is no failure of its own: a task's latest failure stays its failed
// attempt's end, not the cut's (a boot's start, hours later), and an alert on
// catchup_last_failure_timestamp_seconds fires once for one failure. A retry
// cut while it ran is a failure (interrupted) of its own.
func TestLastFailureIsNotARetryCut(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		failedAt := t0.Add(time.Minute)
		for _, task := range []string{"found-dead", "signalled", "ran"} {
			failed := mustClaim(t, s, store.Run{Task: task, Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
			finish(t, s, failed, store.StatusFailed, failedAt)
		}
		dead := mustClaim(t, s, store.Run{Task: "found-dead", Slot: t0, Trigger: store.TriggerRetry, Attempt: 2,
			StartedAt: failedAt, Reason: store.ReasonRetryDelay})
		if ok, err := s.Interrupt(ctx, dead, t0.Add(30*time.Minute), "the host rebooted during its retry delay"); err != nil || !ok {
			t.Fatalf("Interrupt = %v, %v", ok, err)
		}
		cut := mustClaim(t, s, store.Run{Task: "signalled", Slot: t0, Trigger: store.TriggerRetry, Attempt: 2,
			StartedAt: failedAt, Reason: store.ReasonRetryDelay})
		if err := s.Finish(ctx, cut, store.Outcome{Status: store.StatusInterrupted, EndedAt: t0.Add(20 * time.Minute),
			Error: "stopped by a signal to catchup during its retry delay", Reason: store.ReasonRetryCut}); err != nil {
			t.Fatal(err)
		}
		ran := mustClaim(t, s, store.Run{Task: "ran", Slot: t0, Trigger: store.TriggerRetry, Attempt: 2, StartedAt: failedAt})
		finish(t, s, ran, store.StatusInterrupted, t0.Add(10*time.Minute))

		got, err := s.LastFailures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{"found-dead": failedAt, "signalled": failedAt, "ran": t0.Add(10 * time.Minute)}
		for task, at := range want {
			if !got[task].Equal(at) {
				t.Errorf("LastFailures[%s] = %v, want %v", task, got[task], at)
			}
		}
	})
}
