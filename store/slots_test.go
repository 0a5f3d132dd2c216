package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestOnBusyRoundTrip: a task's --on-busy policy is stored and replaced by
// the next registration.
func TestOnBusyRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		for _, p := range []string{"skip", "wait", ""} {
			task := store.Task{Name: "import", Schedule: "0 * * * *", TZ: "UTC", OnBusy: p, RegisteredAt: t0, UpdatedAt: t0}
			if err := s.UpsertTask(t.Context(), task); err != nil {
				t.Fatal(err)
			}
			got, err := s.Task(t.Context(), "import")
			if err != nil || got.OnBusy != p {
				t.Fatalf("OnBusy = %q, %v; want %q", got.OnBusy, err, p)
			}
		}
	})
}

// TestResolveZone: an empty, "Local" or "localtime" zone is replaced once; a recorded
// zone never is, and the watermark stays where it was.
func TestResolveZone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		for name, tz := range map[string]string{"empty": "", "local": "Local", "localtime": "localtime", "set": "Asia/Tokyo"} {
			task := store.Task{Name: name, Schedule: "0 2 * * *", TZ: tz, RegisteredAt: t0, UpdatedAt: t0,
				SettledThrough: t0.Add(time.Hour)}
			if err := s.UpsertTask(t.Context(), task); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			task    string
			changed bool
			want    string
		}{{"empty", true, "Europe/Berlin"}, {"empty", false, "Europe/Berlin"}, {"local", true, "Europe/Berlin"},
			{"localtime", true, "Europe/Berlin"}, {"localtime", false, "Europe/Berlin"}, {"set", false, "Asia/Tokyo"}} {
			changed, err := s.ResolveZone(t.Context(), c.task, "Europe/Berlin")
			if err != nil || changed != c.changed {
				t.Fatalf("ResolveZone(%s) = %v, %v; want %v", c.task, changed, err, c.changed)
			}
			got, err := s.Task(t.Context(), c.task)
			if err != nil || got.TZ != c.want || !got.SettledThrough.Equal(t0.Add(time.Hour)) {
				t.Fatalf("%s: zone %q, watermark %v (%v); want %q, unchanged", c.task, got.TZ, got.SettledThrough, err, c.want)
			}
		}
		if changed, err := s.ResolveZone(t.Context(), "unknown", "UTC"); err != nil || changed {
			t.Fatalf("ResolveZone(unknown) = %v, %v", changed, err)
		}
	})
}

// TestLastSucceededSlot: the latest slot before an instant whose run
// succeeded; failed, skipped and later slots do not count, a pruned
// success does. PrunedSlots names the slots of pruned successes.
func TestLastSucceededSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		day := 24 * time.Hour
		run := func(slot time.Time, status string) {
			id := mustClaim(t, s, store.Run{Task: "settle", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
			finish(t, s, id, status, slot.Add(time.Second))
		}
		if got, err := s.LastSucceededSlot(t.Context(), "settle", t0.Add(10*day)); err != nil || !got.IsZero() {
			t.Fatalf("no runs: %v, %v; want zero", got, err)
		}
		run(t0, store.StatusSucceeded)
		run(t0.Add(day), store.StatusSucceeded)
		run(t0.Add(2*day), store.StatusFailed)
		run(t0.Add(4*day), store.StatusSucceeded)
		if _, err := s.AddRun(t.Context(), store.Run{Task: "settle", Slot: t0.Add(3 * day), Trigger: store.TriggerReplay,
			Status: store.StatusSkipped, StartedAt: t0.Add(5 * day), EndedAt: t0.Add(5 * day)}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ before, want time.Time }{
			{t0.Add(4 * day), t0.Add(day)},
			{t0.Add(4*day + time.Second), t0.Add(4 * day)},
			{t0.Add(day), t0},
			{t0, time.Time{}},
		} {
			got, err := s.LastSucceededSlot(t.Context(), "settle", c.before)
			if err != nil || !got.Equal(c.want) {
				t.Errorf("LastSucceededSlot(before %v) = %v, %v; want %v", c.before, got, err, c.want)
			}
		}
		// Pruned: the slot's successful run is gone, the slot stays done.
		if res, err := s.Prune(t.Context(), store.PruneRequest{Before: t0.Add(3 * day)}); err != nil || res.Runs < 2 {
			t.Fatalf("Prune = %+v, %v; want the first two runs gone", res, err)
		}
		if got, err := s.LastSucceededSlot(t.Context(), "settle", t0.Add(2*day)); err != nil || !got.Equal(t0.Add(day)) {
			t.Errorf("after prune: %v, %v; want %v", got, err, t0.Add(day))
		}
		// PrunedSlots names them (not the pruned failure, nor a success kept).
		got, err := s.PrunedSlots(t.Context(), "settle", t0, t0.Add(10*day))
		if err != nil || len(got) != 2 || !got[0].Equal(t0) || !got[1].Equal(t0.Add(day)) {
			t.Errorf("PrunedSlots = %v, %v; want %v and %v", got, err, t0, t0.Add(day))
		}
		if got, err := s.PrunedSlots(t.Context(), "settle", t0.Add(time.Second), t0.Add(day)); err != nil || len(got) != 1 {
			t.Errorf("PrunedSlots from just after the first = %v, %v; want the second only", got, err)
		}
	})
}

// TestLastPausedSlot: the latest slot a pause settled, before a time; a
// paused record given back by resume --replay-paused no longer counts.
func TestLastPausedSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "p", Schedule: "0 0 * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"},
			RegisteredAt: t0, UpdatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		day := 24 * time.Hour
		paused := func(slot time.Time) {
			if _, err := s.AddRun(ctx, store.Run{Task: "p", Slot: slot, Trigger: store.TriggerReplay,
				Status: store.StatusPaused, StartedAt: t0.Add(9 * day), EndedAt: t0.Add(9 * day)}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.LastPausedSlot(ctx, "p", t0.Add(10*day)); err != nil || !got.IsZero() {
			t.Fatalf("no pause: %v, %v; want zero", got, err)
		}
		paused(t0.Add(2 * day))
		paused(t0.Add(5 * day))
		id := mustClaim(t, s, store.Run{Task: "p", Slot: t0.Add(6 * day), Trigger: store.TriggerSchedule, StartedAt: t0.Add(6 * day)})
		finish(t, s, id, store.StatusSucceeded, t0.Add(6*day+time.Second))
		for _, c := range []struct{ before, want time.Time }{
			{t0.Add(10 * day), t0.Add(5 * day)}, // a success after it is not a pause
			{t0.Add(5 * day), t0.Add(2 * day)},
			{t0.Add(2 * day), time.Time{}},
		} {
			if got, err := s.LastPausedSlot(ctx, "p", c.before); err != nil || !got.Equal(c.want) {
				t.Errorf("LastPausedSlot(before %v) = %v, %v; want %v", c.before, got, err, c.want)
			}
		}
		if _, _, err := s.UnsettlePaused(ctx, "p", t0.Add(4*day)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.LastPausedSlot(ctx, "p", t0.Add(10*day)); err != nil || !got.Equal(t0.Add(2*day)) {
			t.Errorf("after resume --replay-paused from day 4: %v, %v; want %v", got, err, t0.Add(2*day))
		}
	})
}

// TestGiveBack: folded slots given back settle nothing again, and the
// watermark, moved past them meanwhile, comes back below the earliest.
func TestGiveBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "g", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"},
			RegisteredAt: t0, UpdatedAt: t0, SettledThrough: t0.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
		var folds []store.Run
		for h := 1; h <= 4; h++ {
			folds = append(folds, store.Run{Task: "g", Slot: t0.Add(time.Duration(h) * time.Hour), Trigger: store.TriggerReplay,
				Status: store.StatusSkipped, StartedAt: t0.Add(5 * time.Hour), EndedAt: t0.Add(5 * time.Hour), Error: "coalesced"})
		}
		ids, err := s.AddRuns(ctx, folds)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetSettled(ctx, "g", t0.Add(4*time.Hour+30*time.Minute)); err != nil {
			t.Fatal(err)
		}
		zero := 0
		out := store.Outcome{Status: store.StatusSkipped, ExitCode: &zero, EndedAt: t0.Add(6 * time.Hour), Error: "given back"}
		if err := s.GiveBack(ctx, append([]int64{ids[2], 99999}, ids[0], ids[1]), out); err != nil {
			t.Fatal(err)
		}
		task, err := s.Task(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		if want := t0.Add(time.Hour - time.Second); !task.SettledThrough.Equal(want) {
			t.Errorf("watermark %v, want %v: below the earliest slot given back", task.SettledThrough, want)
		}
		for i, id := range ids {
			r, err := s.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			given := i < 3
			if got := r.ExitCode != nil && *r.ExitCode == 0 && r.Error == "given back"; got != given {
				t.Errorf("run %d (slot %d:00): exit %v, error %q; given back: %v, want %v", id, i+1, r.ExitCode, r.Error, got, given)
			}
		}
	})
}
