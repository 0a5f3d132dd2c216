package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// lifecycleTask registers task "old" with a watermark and two runs: a
// fire of its own at t0 and a replay an hour later.
func lifecycleTask(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	task := store.Task{Name: "old", Schedule: "@hourly", Replay: "all", Source: "run",
		RegisteredAt: t0, UpdatedAt: t0, SettledThrough: t0.Add(time.Hour)}
	if err := s.UpsertTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	for i, trigger := range []string{store.TriggerSchedule, store.TriggerReplay} {
		at := t0.Add(time.Duration(i) * time.Hour)
		if _, err := s.AddRun(ctx, store.Run{Task: "old", Slot: at, Trigger: trigger, Status: store.StatusSucceeded,
			ExitCode: intp(0), StartedAt: at, EndedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestForget(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		tests := map[string]struct {
			purge    bool
			wantRuns int64
			wantTask bool
		}{
			"keeps history": {purge: false, wantRuns: 0, wantTask: true},
			"purge":         {purge: true, wantRuns: 2, wantTask: false},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				lifecycleTask(t, s)
				if err := s.SetPause(ctx, "old", t0, time.Time{}); err != nil {
					t.Fatal(err)
				}
				n, err := s.Forget(ctx, "old", t0.Add(2*time.Hour), tc.purge)
				if err != nil || n != tc.wantRuns {
					t.Fatalf("Forget = %d, %v; want %d runs deleted", n, err, tc.wantRuns)
				}
				task, err := s.Task(ctx, "old")
				if !tc.wantTask {
					if !errors.Is(err, store.ErrNotFound) {
						t.Errorf("Task after purge: %v, want not found", err)
					}
					if runs, _ := s.History(ctx, store.HistoryFilter{Task: "old"}); len(runs) != 0 {
						t.Errorf("History after purge: %d runs, want none", len(runs))
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !task.RetiredAt.Equal(t0.Add(2*time.Hour)) || !task.PausedAt.IsZero() {
					t.Errorf("RetiredAt %v, PausedAt %v; want retired at t0+2h, no pause", task.RetiredAt, task.PausedAt)
				}
				if runs, _ := s.History(ctx, store.HistoryFilter{Task: "old"}); len(runs) != 2 {
					t.Errorf("History after forget: %d runs, want 2 kept", len(runs))
				}
				// The next registration is a new one: neither its
				// registration nor its watermark moves back to the old.
				again := t0.Add(48 * time.Hour)
				if err := s.UpsertTask(ctx, store.Task{Name: "old", Schedule: "@hourly", Source: "run",
					RegisteredAt: again, UpdatedAt: again, SettledThrough: again.Add(-time.Second)}); err != nil {
					t.Fatal(err)
				}
				task, err = s.Task(ctx, "old")
				if err != nil {
					t.Fatal(err)
				}
				if !task.RetiredAt.IsZero() || !task.RegisteredAt.Equal(again) || !task.SettledThrough.Equal(again.Add(-time.Second)) {
					t.Errorf("after re-registration: retired %v, registered %v, watermark %v; want active, registered %v",
						task.RetiredAt, task.RegisteredAt, task.SettledThrough, again)
				}
			})
		}
		t.Run("unknown task", func(t *testing.T) {
			s := be.fresh(t)
			if _, err := s.Forget(ctx, "nope", t0, false); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Forget(nope) = %v, want ErrNotFound", err)
			}
			if err := s.SetPause(ctx, "nope", t0, time.Time{}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SetPause(nope) = %v, want ErrNotFound", err)
			}
		})
	})
}

func TestPauseAndUnsettle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		s := be.fresh(t)
		lifecycleTask(t, s)
		from, until := t0.Add(2*time.Hour), t0.Add(5*time.Hour)
		if err := s.SetPause(ctx, "old", from, until); err != nil {
			t.Fatal(err)
		}
		task, err := s.Task(ctx, "old")
		if err != nil || !task.PausedAt.Equal(from) || !task.PausedUntil.Equal(until) {
			t.Fatalf("Task = %v paused %v..%v, want %v..%v", err, task.PausedAt, task.PausedUntil, from, until)
		}
		for _, slot := range []time.Time{from, from.Add(time.Hour)} {
			if _, err := s.AddRun(ctx, store.Run{Task: "old", Slot: slot, Trigger: store.TriggerReplay,
				Status: store.StatusPaused, StartedAt: slot, EndedAt: slot}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetSettled(ctx, "old", from.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		n, _, err := s.UnsettlePaused(ctx, "old", from)
		if err != nil || n != 2 {
			t.Fatalf("UnsettlePaused = %d, %v; want 2", n, err)
		}
		task, _ = s.Task(ctx, "old")
		if want := from.Add(-time.Second); !task.SettledThrough.Equal(want) {
			t.Errorf("watermark %v, want %v", task.SettledThrough, want)
		}
		if !task.PausedAt.IsZero() || !task.PausedUntil.IsZero() {
			t.Errorf("after UnsettlePaused the task is paused %v..%v; want no pause (one transaction with the unsettling)", task.PausedAt, task.PausedUntil)
		}
		runs, _ := s.History(ctx, store.HistoryFilter{Task: "old", Status: store.StatusPaused})
		if len(runs) != 2 {
			t.Errorf("History: %d paused runs, want the 2 kept in the history", len(runs))
		}
		for _, r := range runs {
			if r.Reason != store.ReasonReplayPaused {
				t.Errorf("paused run %d has reason %q, want %q (given back, so no longer settling)", r.ID, r.Reason, store.ReasonReplayPaused)
			}
		}
		if n, _, err := s.UnsettlePaused(ctx, "old", from); err != nil || n != 0 {
			t.Errorf("UnsettlePaused again = %d, %v; want 0 (marked already)", n, err)
		}
		last, err := s.LastFire(ctx, "old")
		if err != nil || !last.Equal(t0) {
			t.Errorf("LastFire = %v, %v; want %v (the replay is not a fire)", last, err, t0)
		}
		if last, err := s.LastFire(ctx, "none"); err != nil || !last.IsZero() {
			t.Errorf("LastFire(none) = %v, %v; want zero", last, err)
		}
	})
}
