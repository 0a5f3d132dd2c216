package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLastFailures: each task's latest failure (failed, timeout,
// interrupted) by when it ended, which the latest run does not show: a job
// overruns its period, the next slot's fire records a lock skip, the job
// fails, and the replay of that slot succeeds; an old run interrupted
// after a later run timed out. A task that never failed is not listed.
func TestLastFailures(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		h := time.Hour

		// overrun: 02:00 runs past 03:00, fails at 03:30; 03:00 is replayed.
		over := mustClaim(t, s, store.Run{Task: "overrun", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		skip := store.Run{Task: "overrun", Slot: t0.Add(h), Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
			Attempt: 1, Host: "testhost", ExitCode: intp(75), Error: "task is already running (lock held)",
			StartedAt: t0.Add(h), EndedAt: t0.Add(h)}
		if _, err := s.AddRun(ctx, skip); err != nil {
			t.Fatal(err)
		}
		failedAt := t0.Add(90*time.Minute + 123*time.Millisecond)
		finish(t, s, over, store.StatusFailed, failedAt)
		replay := mustClaim(t, s, store.Run{Task: "overrun", Slot: t0.Add(h), Trigger: store.TriggerReplay,
			StartedAt: t0.Add(91 * time.Minute)})
		finish(t, s, replay, store.StatusSucceeded, t0.Add(92*time.Minute))

		// late: 02:00 left running (its host crashed), 03:00 times out at
		// 03:05, then a scan interrupts 02:00 at 05:00.
		stale := mustClaim(t, s, store.Run{Task: "late", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		timedOut := mustClaim(t, s, store.Run{Task: "late", Slot: t0.Add(h), Trigger: store.TriggerSchedule, StartedAt: t0.Add(h)})
		finish(t, s, timedOut, store.StatusTimeout, t0.Add(65*time.Minute))
		if ok, err := s.Interrupt(ctx, stale, t0.Add(3*h), "host rebooted"); err != nil || !ok {
			t.Fatalf("Interrupt = %v, %v", ok, err)
		}

		// clean: a success, a lock skip and an expired slot are no failure.
		ok := mustClaim(t, s, store.Run{Task: "clean", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, ok, store.StatusSucceeded, t0.Add(time.Minute))
		expired := skip
		expired.Task, expired.Status, expired.ExitCode, expired.Reason = "clean", store.StatusExpired, nil, store.ReasonMaxAge
		if _, err := s.AddRuns(ctx, []store.Run{expired}); err != nil {
			t.Fatal(err)
		}

		all, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range all {
			if ts.Task.Name == "overrun" && (ts.Latest == nil || ts.Latest.Status != store.StatusSucceeded) {
				t.Errorf("overrun's latest = %+v, want the replay's success (the failure is not the latest)", ts.Latest)
			}
		}
		got, err := s.LastFailures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{"overrun": failedAt, "late": t0.Add(3 * h)}
		if len(got) != len(want) {
			t.Errorf("LastFailures = %v, want %v", got, want)
		}
		for task, at := range want {
			if !got[task].Equal(at) {
				t.Errorf("LastFailures[%s] = %v, want %v", task, got[task], at)
			}
		}
	})
}
