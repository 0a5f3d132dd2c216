package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// batchTasks are the tasks batchLedger records, and a name it does not.
var batchTasks = []string{"never", "busy", "slotless", "duplicate", "paused", "replays", "running", "unknown"}

// batchHosts are the hosts batchLedger records boots of (one with bytes
// that are not UTF-8, as a host name may be), and one it does not.
var batchHosts = []string{"h1", "h2", "h\xff\x00", "", "nobody"}

// batchLedger records tasks whose per-task reads differ: no runs, slots
// out of order, runs without a slot, the records ls leaves out (a
// duplicate fire's skip, a paused record given back, a folded slot, a
// retry cut in its delay), a pause's record, only replays, expiries, a
// run still running; and boots of several hosts.
func batchLedger(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	h := time.Hour
	for _, name := range batchTasks[:len(batchTasks)-1] { // the batched reads read the tasks Tasks lists
		if err := s.UpsertTask(ctx, store.Task{Name: name, Schedule: "0 * * * *", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(r store.Run) {
		t.Helper()
		r.Attempt, r.Host = 1, "h1"
		if r.StartedAt.IsZero() {
			r.StartedAt = t0.Add(50 * h)
		}
		r.EndedAt = r.StartedAt.Add(time.Second)
		if _, err := s.AddRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ran := func(task string, slot time.Time, trigger, status string, started time.Time) {
		t.Helper()
		id := mustClaim(t, s, store.Run{Task: task, Slot: slot, Trigger: trigger, StartedAt: started, Host: "h2"})
		finish(t, s, id, status, started.Add(time.Minute))
	}
	ran("busy", time.Time{}, store.TriggerManual, store.StatusSucceeded, t0.Add(-h+250*time.Millisecond))
	ran("busy", t0.Add(3*h), store.TriggerSchedule, store.StatusSucceeded, t0.Add(3*h))
	ran("busy", t0.Add(7*h), store.TriggerSchedule, store.StatusFailed, t0.Add(7*h+time.Second))
	ran("busy", t0.Add(5*h), store.TriggerReplay, store.StatusSucceeded, t0.Add(8*h))
	add(store.Run{Task: "busy", Slot: t0.Add(-2 * h), Trigger: store.TriggerReplay, Status: store.StatusExpired, Reason: store.ReasonMaxAge})
	add(store.Run{Task: "busy", Slot: t0.Add(-3 * h), Trigger: store.TriggerReplay, Status: store.StatusExpired, Reason: store.ReasonMaxAge})
	add(store.Run{Task: "busy", Slot: t0.Add(9 * h), Trigger: store.TriggerSchedule, Status: store.StatusSkipped, ExitCode: intp(0)})
	add(store.Run{Task: "busy", Slot: t0.Add(10 * h), Trigger: store.TriggerSchedule, Status: store.StatusPaused, Reason: store.ReasonReplayPaused})
	add(store.Run{Task: "busy", Slot: t0.Add(2 * h), Trigger: store.TriggerReplay, Status: store.StatusSkipped})
	add(store.Run{Task: "busy", Slot: t0.Add(6 * h), Trigger: store.TriggerRetry, Status: store.StatusInterrupted, Reason: "retry-cut"})
	ran("busy", time.Time{}, store.TriggerManual, store.StatusFailed, t0.Add(48*h))
	ran("slotless", time.Time{}, store.TriggerManual, store.StatusSucceeded, t0)
	ran("slotless", time.Time{}, store.TriggerSchedule, store.StatusFailed, t0.Add(h))
	add(store.Run{Task: "duplicate", Slot: t0.Add(h), Trigger: store.TriggerSchedule, Status: store.StatusSkipped, ExitCode: intp(0)})
	ran("paused", t0, store.TriggerReplay, store.StatusSucceeded, t0.Add(time.Minute))
	add(store.Run{Task: "paused", Slot: t0.Add(h), Trigger: store.TriggerSchedule, Status: store.StatusPaused})
	ran("replays", t0, store.TriggerReplay, store.StatusTimeout, t0.Add(time.Minute))
	mustClaim(t, s, store.Run{Task: "running", Slot: t0.Add(h), Trigger: store.TriggerSchedule, StartedAt: t0.Add(h), Host: "h1"})
	for i, b := range []store.Boot{
		{Host: "h1", ID: "b1", Time: t0, FirstSeen: t0.Add(h), LastSeen: t0.Add(h)},
		{Host: "h2", ID: "b1", FirstSeen: t0.Add(h), LastSeen: t0.Add(h)},
		{Host: "h1", ID: "b2", Time: t0.Add(24 * h), FirstSeen: t0.Add(25 * h), LastSeen: t0.Add(26 * h)},
		{Host: "h\xff\x00", ID: "b1", Time: t0, FirstSeen: t0.Add(h), LastSeen: t0.Add(h)},
		{Host: "h1", ID: "b2", Time: t0.Add(72 * h), FirstSeen: t0.Add(73 * h), LastSeen: t0.Add(73 * h)}, // the clock stepped
	} {
		if err := s.SeeBoot(ctx, b); err != nil {
			t.Fatalf("SeeBoot %d: %v", i, err)
		}
	}
}

// TestBatchReadsAsPerTaskReads: each batched read returns, for every task
// (and host), what the per-task read of its name returns.
func TestBatchReadsAsPerTaskReads(t *testing.T) {
	named := append(append([]string{}, batchTasks...), "busy") // a name twice is read once
	type check func(t *testing.T, s store.Store, task string)
	times := func(batch func(store.Store) (map[string]time.Time, error), one func(store.Store, string) (time.Time, error)) check {
		return func(t *testing.T, s store.Store, task string) {
			all, err := batch(s)
			if err != nil {
				t.Fatal(err)
			}
			want, err := one(s, task)
			if err != nil {
				t.Fatal(err)
			}
			if got := all[task]; !got.Equal(want) || got.IsZero() != want.IsZero() || !got.IsZero() && got.Location() != time.UTC {
				t.Errorf("task %s: batched %v, per task %v", task, got, want)
			}
		}
	}
	ctx := context.Background()
	checks := map[string]check{
		"LatestSlots": times(func(s store.Store) (map[string]time.Time, error) { return s.LatestSlots(ctx) },
			func(s store.Store, task string) (time.Time, error) { return s.LatestSlot(ctx, task) }),
		"LatestListedSlots": times(func(s store.Store) (map[string]time.Time, error) { return s.LatestListedSlots(ctx, named) },
			func(s store.Store, task string) (time.Time, error) { return s.LatestListedSlot(ctx, task) }),
		"LastFires": times(func(s store.Store) (map[string]time.Time, error) { return s.LastFires(ctx) },
			func(s store.Store, task string) (time.Time, error) { return s.LastFire(ctx, task) }),
		"LatestRans": func(t *testing.T, s store.Store, task string) {
			all, err := s.LatestRans(ctx, named)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.LatestRan(ctx, task)
			if err != nil {
				t.Fatal(err)
			}
			if got := all[task]; (got == nil) != (want == nil) || got != nil && !sameRun(*got, *want) {
				t.Errorf("task %s: batched %+v, per task %+v", task, got, want)
			}
		},
		"StatusCountByTask": func(t *testing.T, s store.Store, task string) {
			for _, status := range []string{store.StatusExpired, store.StatusSucceeded, store.StatusSkipped, store.StatusRunning, "exploded"} {
				all, err := s.StatusCountByTask(ctx, status)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.StatusCount(ctx, task, status)
				if err != nil || all[task] != want {
					t.Errorf("task %s, status %s: batched %d, per task %d (%v)", task, status, all[task], want, err)
				}
			}
		},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		batchLedger(t, s)
		for name, c := range checks {
			t.Run(name, func(t *testing.T) {
				for _, task := range batchTasks {
					c(t, s, task)
				}
			})
		}
		t.Run("the ledger tells the reads apart", func(t *testing.T) {
			held, err1 := s.LatestSlot(ctx, "busy")
			listed, err2 := s.LatestListedSlot(ctx, "busy")
			ran, err3 := s.LatestRan(ctx, "paused")
			fire, err4 := s.LastFire(ctx, "replays")
			expired, err5 := s.StatusCount(ctx, "busy", store.StatusExpired)
			if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
				t.Fatal(err)
			}
			if !held.Equal(t0.Add(10*time.Hour)) || !listed.Equal(t0.Add(7*time.Hour)) || ran == nil ||
				ran.Status != store.StatusSucceeded || !fire.IsZero() || expired != 2 {
				t.Errorf("busy: latest slot %v, listed %v; paused: ran %+v; replays: last fire %v; busy: %d expired",
					held, listed, ran, fire, expired)
			}
		})
		t.Run("BootsOf", func(t *testing.T) {
			all, err := s.BootsOf(ctx, batchHosts)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range batchHosts {
				want, err := s.Boots(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				if got := all[h]; len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("host %q: batched %+v, per host %+v", h, got, want)
				}
			}
			if len(all["h1"]) != 3 {
				t.Errorf("host h1: %d spans, want 3 (the test's own)", len(all["h1"]))
			}
		})
		t.Run("no names", func(t *testing.T) {
			listed, err1 := s.LatestListedSlots(ctx, nil)
			ran, err2 := s.LatestRans(ctx, nil)
			boots, err3 := s.BootsOf(ctx, nil)
			if len(listed)+len(ran)+len(boots) != 0 || errors.Join(err1, err2, err3) != nil {
				t.Errorf("reads of no name = %v, %v, %v, %v", listed, ran, boots, errors.Join(err1, err2, err3))
			}
		})
	})
}
