package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRetryCutRanNothing: a retry recorded interrupted during its delay,
// with store.ReasonRetryCut, keeps its reason, and the task's latest run
// (Tasks, LatestRan) is the failed attempt before it, whose outcome stands;
// a retry cut while it ran is the latest; an outcome without a reason
// keeps the run's own.
func TestRetryCutRanNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		failed := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, failed, store.StatusFailed, t0.Add(time.Second))
		cut := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerRetry, Attempt: 2, StartedAt: t0.Add(time.Second)})
		if err := s.Finish(ctx, cut, store.Outcome{Status: store.StatusInterrupted, EndedAt: t0.Add(2 * time.Second),
			Error: "stopped during its retry delay", Reason: store.ReasonRetryCut}); err != nil {
			t.Fatal(err)
		}
		if r := getRun(t, s, cut); r.Reason != store.ReasonRetryCut || r.Status != store.StatusInterrupted {
			t.Fatalf("the cut retry reads %s, reason %q; want interrupted, reason %q", r.Status, r.Reason, store.ReasonRetryCut)
		}
		latest := func() (*store.Run, *store.Run) {
			t.Helper()
			all, err := s.Tasks(ctx)
			if err != nil || len(all) != 1 {
				t.Fatalf("Tasks = %+v, %v", all, err)
			}
			ran, err := s.LatestRan(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			return all[0].Latest, ran
		}
		if l, ran := latest(); l == nil || l.ID != failed || ran == nil || ran.ID != failed {
			t.Errorf("latest = %+v, latest ran = %+v; want the failed attempt, run %d", l, ran, failed)
		}

		// A later retry that ran and was cut is the task's latest run.
		ranCut := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerRetry, Attempt: 3, StartedAt: t0.Add(time.Minute)})
		finish(t, s, ranCut, store.StatusInterrupted, t0.Add(2*time.Minute))
		if l, ran := latest(); l == nil || l.ID != ranCut || ran == nil || ran.ID != ranCut {
			t.Errorf("latest = %+v, latest ran = %+v; want the retry that ran, run %d", l, ran, ranCut)
		}

		// An outcome recorded without a reason keeps the one the run has.
		finish(t, s, cut, store.StatusInterrupted, t0.Add(3*time.Second))
		if r := getRun(t, s, cut); r.Reason != store.ReasonRetryCut {
			t.Errorf("after an outcome without a reason the run's reason is %q; want %q kept", r.Reason, store.ReasonRetryCut)
		}
	})
}
