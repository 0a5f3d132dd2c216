package store_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestTaskNotFound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"nope", "Backup", "backup ", ""} {
			_, err := s.Task(t.Context(), name)
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Task(%q) error %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestTasksLatestRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		for _, name := range []string{"c-never", "b-busy", "a-once"} {
			if err := s.UpsertTask(ctx, store.Task{Name: name, RegisteredAt: t0, UpdatedAt: t0}); err != nil {
				t.Fatal(err)
			}
		}
		// b-busy: several runs; the latest by id is of an older slot (a
		// replay of t0 after the fire of t0+2h): the latest is the manual run
		// (no slot) recorded after the newest slot's.
		mustClaim(t, s, store.Run{Task: "b-busy", Slot: t0.Add(2 * time.Hour), Trigger: store.TriggerSchedule, StartedAt: t0.Add(2 * time.Hour)})
		latest := mustClaim(t, s, store.Run{Task: "b-busy", Trigger: store.TriggerManual, StartedAt: t0.Add(3 * time.Hour)})
		other := mustClaim(t, s, store.Run{Task: "a-once", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, other, store.StatusFailed, t0.Add(time.Minute))
		// Another host's fire of a-once's slot, a duplicate: it ran nothing
		// and settles nothing, so it does not hide the failure (ls, metrics).
		zero := 0
		if _, err := s.AddRun(ctx, store.Run{Task: "a-once", Slot: t0, Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
			ExitCode: &zero, Error: "duplicate fire of slot x", Host: "other", StartedAt: t0.Add(time.Second), EndedAt: t0.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, store.Run{Task: "b-busy", Slot: t0, Trigger: store.TriggerReplay, StartedAt: t0.Add(time.Hour)})
		// A task that only exists through a claim (no UpsertTask).
		implicit := mustClaim(t, s, store.Run{Task: "d-implicit", Trigger: store.TriggerManual, StartedAt: t0})

		got, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"a-once": other, "b-busy": latest, "c-never": 0, "d-implicit": implicit}
		var names []string
		for _, ts := range got {
			names = append(names, ts.Task.Name)
			wantID, ok := want[ts.Task.Name]
			switch {
			case !ok:
				t.Errorf("unexpected task %q", ts.Task.Name)
			case wantID == 0 && ts.Latest != nil:
				t.Errorf("%s: Latest = %+v, want nil (never ran)", ts.Task.Name, *ts.Latest)
			case wantID != 0 && ts.Latest == nil:
				t.Errorf("%s: Latest = nil, want run %d", ts.Task.Name, wantID)
			case wantID != 0 && ts.Latest.ID != wantID:
				t.Errorf("%s: Latest = run %d, want %d", ts.Task.Name, ts.Latest.ID, wantID)
			}
		}
		if !reflect.DeepEqual(names, []string{"a-once", "b-busy", "c-never", "d-implicit"}) {
			t.Errorf("Tasks order %q, want by name", names)
		}
		for _, ts := range got {
			if ts.Task.Name == "a-once" && ts.Latest != nil {
				r := ts.Latest
				if r.Status != store.StatusFailed || r.Task != "a-once" || !r.Slot.Equal(t0) || !r.EndedAt.Equal(t0.Add(time.Minute)) {
					t.Errorf("a-once latest = %+v", *r)
				}
			}
		}
	})
}

func TestTasksEmpty(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		got, err := s.Tasks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("Tasks on a new ledger = %+v", got)
		}
	})
}

// TestTasksLatestPassesAnOlderExpiry: an expiry of a slot older than one a
// run holds, recorded after that run (prune, a scan, forget giving up the
// past), is not the task's latest: it would hide a newer failure from ls,
// catchup_last_run_status and the recipes' alert. An expiry of the latest
// slot still is.
func TestTasksLatestPassesAnOlderExpiry(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		h := time.Hour
		for _, name := range []string{"failed-then-older", "success-after", "running", "newer-expired", "only-expired", "same-slot", "paused"} {
			if err := s.UpsertTask(ctx, store.Task{Name: name, RegisteredAt: t0, UpdatedAt: t0}); err != nil {
				t.Fatal(err)
			}
		}
		expire := func(task string, slot time.Time) int64 {
			t.Helper()
			at := t0.Add(20 * h)
			id, err := s.AddRun(ctx, store.Run{Task: task, Slot: slot, Trigger: store.TriggerReplay, Status: store.StatusExpired,
				Reason: store.ReasonMaxAge, Attempt: 1, Host: "h1", StartedAt: at, EndedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		ran := func(task string, slot time.Time, status string) int64 {
			t.Helper()
			id := mustClaim(t, s, store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
			if status != store.StatusRunning {
				finish(t, s, id, status, slot.Add(time.Minute))
			}
			return id
		}
		want := map[string]int64{}
		// The failure of 10:00, then 08:00 and 09:00 given up.
		want["failed-then-older"] = ran("failed-then-older", t0.Add(10*h), store.StatusFailed)
		expire("failed-then-older", t0.Add(8*h))
		expire("failed-then-older", t0.Add(9*h))
		// The same, ended by a success of 11:00 and an older expiry.
		ran("success-after", t0.Add(10*h), store.StatusFailed)
		want["success-after"] = ran("success-after", t0.Add(11*h), store.StatusSucceeded)
		expire("success-after", t0.Add(9*h))
		// A run still running at 10:00; 09:00 given up meanwhile.
		want["running"] = ran("running", t0.Add(10*h), store.StatusRunning)
		expire("running", t0.Add(9*h))
		// Slots after the last run given up: the task's latest word is expired.
		ran("newer-expired", t0.Add(10*h), store.StatusFailed)
		expire("newer-expired", t0.Add(9*h))
		want["newer-expired"] = expire("newer-expired", t0.Add(12*h))
		expire("newer-expired", t0.Add(8*h))
		// Only expiries: that of the newest slot, not the latest by id.
		want["only-expired"] = expire("only-expired", t0.Add(9*h))
		expire("only-expired", t0.Add(8*h))
		// An expiry of the failed slot itself is that slot's latest word.
		ran("same-slot", t0.Add(10*h), store.StatusFailed)
		want["same-slot"] = expire("same-slot", t0.Add(10*h))

		// A pause's records (12:00, 13:00), then the slots before it given up
		// (09:00, 10:00): while the pause stands its record is the latest;
		// once it is over (LatestRan: no paused record) the 10:00 expiry is
		// newer than the 08:00 run that ran, and is the task's latest word.
		ran("paused", t0.Add(8*h), store.StatusSucceeded)
		for _, slot := range []time.Time{t0.Add(12 * h), t0.Add(13 * h)} {
			at := t0.Add(14 * h)
			id, err := s.AddRun(ctx, store.Run{Task: "paused", Slot: slot, Trigger: store.TriggerReplay, Status: store.StatusPaused,
				Attempt: 1, Host: "h1", StartedAt: at, EndedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			want["paused"] = id
		}
		expire("paused", t0.Add(9*h))
		pausedRan := expire("paused", t0.Add(10*h))

		got, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, ts := range got {
			wantID, ok := want[ts.Task.Name]
			if !ok {
				continue
			}
			seen++
			if ts.Latest == nil || ts.Latest.ID != wantID {
				t.Errorf("%s: Latest = %+v, want run %d", ts.Task.Name, ts.Latest, wantID)
			}
		}
		if seen != len(want) {
			t.Errorf("Tasks listed %d of the %d tasks", seen, len(want))
		}
		ran2, err := s.LatestRans(ctx, []string{"failed-then-older", "newer-expired", "paused"})
		if err != nil {
			t.Fatal(err)
		}
		for task, id := range map[string]int64{"failed-then-older": want["failed-then-older"], "newer-expired": want["newer-expired"], "paused": pausedRan} {
			if r := ran2[task]; r == nil || r.ID != id {
				t.Errorf("LatestRans[%s] = %+v, want run %d", task, r, id)
			}
			if r, err := s.LatestRan(ctx, task); err != nil || r == nil || r.ID != id {
				t.Errorf("LatestRan(%s) = %+v, %v, want run %d", task, r, err, id)
			}
		}
	})
}
