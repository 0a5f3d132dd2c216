package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A task's schedule takes effect when it changes: UpsertTask keeps the
// change's watermark as ScheduleSince, a registration that changes nothing
// keeps it, and a task registered anew after its retirement (its
// registration bounds it) has none. A run of the old schedule, running at
// the change and found dead after it, lowers the watermark below its slot
// as any dead run does (the missed-slot rule replays that slot if the new
// schedule has it too, and scan records it expired if not), and holds it
// there until a record settles its slot.
func TestScheduleSince(t *testing.T) {
	const day = 24 * time.Hour
	oldSlot := t0.Add(2 * time.Hour) // a slot of "0 2 * * *", running at the change
	change := t0.Add(3*time.Hour - time.Second)
	tests := map[string]struct {
		before    store.Task // the registration before the change
		after     store.Task // the fire's, with the watermark it sets
		retire    bool       // the task is retired between the claim and after
		wantSince time.Time  // ScheduleSince after the second registration
	}{
		"schedule changed": {
			before:    store.Task{Schedule: "0 2 * * *", TZ: "UTC"},
			after:     store.Task{Schedule: "0 3 * * *", TZ: "UTC", SettledThrough: change},
			wantSince: change,
		},
		"zone changed": {
			before:    store.Task{Schedule: "0 2 * * *", TZ: "UTC"},
			after:     store.Task{Schedule: "0 2 * * *", TZ: "Europe/Berlin", SettledThrough: change},
			wantSince: change,
		},
		"no schedule before": {
			before:    store.Task{},
			after:     store.Task{Schedule: "0 3 * * *", TZ: "UTC", SettledThrough: change},
			wantSince: change,
		},
		"unchanged": {
			before: store.Task{Schedule: "0 2 * * *", TZ: "UTC", SettledThrough: change},
			after:  store.Task{Schedule: "0 2 * * *", TZ: "UTC", SettledThrough: change},
		},
		"retired, registered anew": {
			before: store.Task{Schedule: "0 2 * * *", TZ: "UTC"},
			after:  store.Task{Schedule: "0 3 * * *", TZ: "UTC", SettledThrough: change},
			retire: true,
		},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				reg := func(x store.Task) store.Task {
					x.Name, x.Source, x.RegisteredAt, x.UpdatedAt = "d", "run", t0, t0
					return x
				}
				upsert(t, s, reg(tc.before))
				id := mustClaim(t, s, store.Run{Task: "d", Slot: oldSlot, Trigger: store.TriggerSchedule, StartedAt: oldSlot})
				if tc.retire {
					if _, err := s.Forget(ctx, "d", oldSlot.Add(time.Minute), false); err != nil {
						t.Fatal(err)
					}
				}
				upsert(t, s, reg(tc.after))
				if got := scheduleSince(t, s, "d"); !got.Equal(tc.wantSince) {
					t.Fatalf("ScheduleSince = %v, want %v", got, tc.wantSince)
				}
				upsert(t, s, reg(tc.after))
				if got := scheduleSince(t, s, "d"); !got.Equal(tc.wantSince) {
					t.Fatalf("after the same registration again: ScheduleSince = %v, want %v", got, tc.wantSince)
				}
				if _, err := s.Interrupt(ctx, id, change.Add(time.Hour), "the host rebooted while it ran"); err != nil {
					t.Fatal(err)
				}
				held := oldSlot.Add(-time.Second)
				if got := watermark(t, s, "d"); !got.Equal(held) {
					t.Fatalf("after the run's Interrupt: SettledThrough = %v, want %v (its slot missed again)", got, held)
				}
				if err := s.SetSettled(ctx, "d", t0.Add(day)); err != nil {
					t.Fatal(err)
				}
				if got := watermark(t, s, "d"); !got.Equal(held) {
					t.Errorf("SetSettled past the interrupted run: SettledThrough = %v, want %v", got, held)
				}
			})
		}
	})
}

// Backdate moves the instant the schedule took effect back with the
// registration (a first fire noted on a host under the same schedule), and
// reset-clock brings one set while the clock was ahead back to where the
// watermark goes.
func TestScheduleSinceMovesBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		t.Run("backdate", func(t *testing.T) {
			s := be.fresh(t)
			reg := t0.Add(10 * time.Hour)
			upsert(t, s, store.Task{Name: "d", Schedule: "0 * * * *", TZ: "UTC", Source: "run", RegisteredAt: reg, UpdatedAt: reg,
				SettledThrough: reg})
			upsert(t, s, store.Task{Name: "d", Schedule: "30 * * * *", TZ: "UTC", Source: "run", RegisteredAt: reg, UpdatedAt: reg,
				SettledThrough: reg.Add(time.Hour)})
			from := t0.Add(5 * time.Hour)
			if moved, err := s.Backdate(t.Context(), "d", from); err != nil || !moved {
				t.Fatalf("Backdate = %v, %v; want true", moved, err)
			}
			if got, want := scheduleSince(t, s, "d"), from.Add(-time.Second); !got.Equal(want) {
				t.Errorf("ScheduleSince = %v, want %v", got, want)
			}
		})
		t.Run("reset-clock", func(t *testing.T) {
			s := be.fresh(t)
			glitch := t0.Add(5 * 365 * 24 * time.Hour)
			upsert(t, s, store.Task{Name: "d", Schedule: "0 * * * *", TZ: "UTC", Source: "run", RegisteredAt: t0, UpdatedAt: t0,
				SettledThrough: t0})
			upsert(t, s, store.Task{Name: "d", Schedule: "30 * * * *", TZ: "UTC", Source: "run", RegisteredAt: t0, UpdatedAt: glitch,
				SettledThrough: glitch})
			now, floor := t0.Add(48*time.Hour), t0.Add(24*time.Hour)
			res, err := s.ResetClock(t.Context(), store.ClockReset{Task: "d", Now: now, Floor: floor, Note: "detached"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.ScheduleSince.Equal(glitch) {
				t.Errorf("ClockResetResult.ScheduleSince = %v, want %v (reset-clock says what it moved)", res.ScheduleSince, glitch)
			}
			if got := scheduleSince(t, s, "d"); !got.Equal(floor) {
				t.Errorf("ScheduleSince = %v, want %v (the watermark reset-clock gives back)", got, floor)
			}
			if got := watermark(t, s, "d"); !got.Equal(floor) {
				t.Errorf("SettledThrough = %v, want %v", got, floor)
			}
		})
	})
}

// scheduleSince returns the ScheduleSince of task.
func scheduleSince(t testing.TB, s store.Store, task string) time.Time {
	t.Helper()
	got, err := s.Task(t.Context(), task)
	if err != nil {
		t.Fatalf("Task(%s): %v", task, err)
	}
	return got.ScheduleSince
}
