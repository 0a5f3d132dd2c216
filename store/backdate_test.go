package store_test

import (
	"testing"
	"time"
)

// Backdate moves a registration back, and the watermark with it, only when
// the task is registered later than from; it never moves either forward.
func TestBackdate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		tests := map[string]struct {
			task        string
			from        time.Time
			wantMoved   bool
			wantReg     time.Time
			wantSettled time.Time
		}{
			"registered later":   {task: "old", from: t0.Add(-2 * time.Hour), wantMoved: true, wantReg: t0.Add(-2 * time.Hour), wantSettled: t0.Add(-2*time.Hour - time.Second)},
			"registered at from": {task: "old", from: t0, wantReg: t0, wantSettled: t0.Add(time.Hour)},
			"registered earlier": {task: "old", from: t0.Add(time.Hour), wantReg: t0, wantSettled: t0.Add(time.Hour)},
			"unknown task":       {task: "nosuch", from: t0},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				lifecycleTask(t, s) // registered at t0, settled through t0+1h
				moved, err := s.Backdate(ctx, tc.task, tc.from)
				if err != nil || moved != tc.wantMoved {
					t.Fatalf("Backdate = %v, %v; want %v", moved, err, tc.wantMoved)
				}
				if tc.task != "old" {
					return
				}
				task, err := s.Task(ctx, "old")
				if err != nil {
					t.Fatal(err)
				}
				if !task.RegisteredAt.Equal(tc.wantReg) || !task.SettledThrough.Equal(tc.wantSettled) {
					t.Errorf("after Backdate: registered %v, settled through %v; want %v, %v",
						task.RegisteredAt, task.SettledThrough, tc.wantReg, tc.wantSettled)
				}
			})
		}
	})
}
