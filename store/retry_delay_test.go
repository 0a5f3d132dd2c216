package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRetryDelayFoundDead: a retry claimed as its delay begins carries
// store.ReasonRetryDelay until it starts. Found dead meanwhile (Interrupt:
// a power cut during the delay), it ran nothing: its reason becomes
// store.ReasonRetryCut, and the task's latest run is the failed attempt
// before it, as for a retry a signal cut in its delay; so is a run by
// hand's (store.ReasonByHandRetryDelay). SetStarted clears the mark, and
// so does an outcome without a reason, giving a run by hand's back.
func TestRetryDelayFoundDead(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		failed := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, failed, store.StatusFailed, t0.Add(time.Second))
		waiting := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerRetry, Attempt: 2,
			StartedAt: t0.Add(time.Second), Reason: store.ReasonRetryDelay})
		if ok, err := s.Interrupt(ctx, waiting, t0.Add(time.Minute), "the host rebooted during its retry delay"); err != nil || !ok {
			t.Fatalf("Interrupt = %v, %v", ok, err)
		}
		if r := getRun(t, s, waiting); r.Status != store.StatusInterrupted || r.Reason != store.ReasonRetryCut {
			t.Errorf("the retry found dead in its delay reads %s, reason %q; want interrupted, reason %q", r.Status, r.Reason, store.ReasonRetryCut)
		}
		byHand := mustClaim(t, s, store.Run{Task: "hand", Trigger: store.TriggerRetry, Attempt: 2,
			StartedAt: t0.Add(time.Second), Reason: store.ReasonByHandRetryDelay})
		if _, err := s.Interrupt(ctx, byHand, t0.Add(time.Minute), "the host rebooted during its retry delay"); err != nil {
			t.Fatal(err)
		}
		if r := getRun(t, s, byHand); r.Reason != store.ReasonRetryCut {
			t.Errorf("a run by hand's retry found dead in its delay has reason %q; want %q", r.Reason, store.ReasonRetryCut)
		}
		all, err := s.Tasks(ctx)
		if err != nil || len(all) != 2 || all[1].Latest == nil || all[1].Latest.ID != failed {
			t.Errorf("Tasks = %+v, %v; want the failed attempt, run %d, the latest", all, err, failed)
		}

		for _, mark := range []struct{ waiting, own string }{{store.ReasonRetryDelay, ""}, {store.ReasonByHandRetryDelay, store.ReasonByHand}} {
			for name, end := range map[string]func(id int64){
				"SetStarted": func(id int64) {
					if _, err := s.SetStarted(ctx, id, t0.Add(time.Hour)); err != nil {
						t.Fatal(err)
					}
				},
				"Finish": func(id int64) { finish(t, s, id, store.StatusFailed, t0.Add(time.Hour)) },
			} {
				id := mustClaim(t, s, store.Run{Task: "job-" + name + mark.waiting, Slot: t0, Trigger: store.TriggerRetry, Attempt: 2,
					StartedAt: t0, Reason: mark.waiting})
				end(id)
				if r := getRun(t, s, id); r.Reason != mark.own {
					t.Errorf("after %s the retry marked %q has reason %q; want %q", name, mark.waiting, r.Reason, mark.own)
				}
			}
		}
	})
}

// TestSetStartedSaysWhetherItStillRuns: SetStarted reports whether the
// retry it starts was still running: false when another host (or a
// scan) took it for dead during its delay and recorded it interrupted, in
// the same statement that would start it, so that no check before it
// leaves a moment where the retry starts a run already taken for dead
// (its slot replayed elsewhere: the slot run twice at once).
func TestSetStartedSaysWhetherItStillRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		claim := func(task string) int64 {
			return mustClaim(t, s, store.Run{Task: task, Slot: t0, Trigger: store.TriggerRetry, Attempt: 2,
				StartedAt: t0, Reason: store.ReasonRetryDelay})
		}
		live := claim("live")
		if running, err := s.SetStarted(ctx, live, t0.Add(time.Minute)); err != nil || !running {
			t.Errorf("SetStarted of a running retry = %v, %v; want true", running, err)
		}
		taken := claim("taken")
		if _, err := s.Interrupt(ctx, taken, t0.Add(time.Minute), "no heartbeat: taken for dead"); err != nil {
			t.Fatal(err)
		}
		if running, err := s.SetStarted(ctx, taken, t0.Add(2*time.Minute)); err != nil || running {
			t.Errorf("SetStarted of a retry taken for dead = %v, %v; want false", running, err)
		}
		if r := getRun(t, s, taken); r.Status != store.StatusInterrupted || !r.StartedAt.Equal(t0) {
			t.Errorf("the retry taken for dead reads %s, started %v; want interrupted, started %v (untouched)", r.Status, r.StartedAt, t0)
		}
	})
}
