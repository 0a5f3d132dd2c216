package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func at(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSeeBoot: sightings of one boot extend its span; a boot time that moved
// by more than store.BootStep (a clock step) starts a new span; an unknown
// boot time matches any; another boot or another host is its own.
func TestSeeBoot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s, ctx := be.fresh(t), context.Background()
		bt := at(t, "2026-11-01T00:00:00Z")
		see := func(host, id string, boot time.Time, seen string) {
			t.Helper()
			b := store.Boot{Host: host, ID: id, Time: boot, FirstSeen: at(t, seen), LastSeen: at(t, seen)}
			if err := s.SeeBoot(ctx, b); err != nil {
				t.Fatalf("SeeBoot(%+v): %v", b, err)
			}
		}
		see("h", "b1", bt, "2026-11-20T02:00:00Z")
		see("h", "b1", bt.Add(30*time.Second), "2026-11-21T02:00:00Z") // jitter: same span
		see("h", "b1", time.Time{}, "2026-11-19T02:00:00Z")            // unknown boot time, seen earlier
		see("h", "b1", bt.Add(48*time.Hour), "2026-11-23T08:00:00Z")   // stepped two days forward
		see("h", "b2", at(t, "2026-11-25T00:00:00Z"), "2026-11-25T00:01:00Z")
		see("other", "b1", bt, "2026-11-20T02:00:00Z")
		got, err := s.Boots(ctx, "h")
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Boot{
			{Host: "h", ID: "b1", Time: bt, FirstSeen: at(t, "2026-11-19T02:00:00Z"), LastSeen: at(t, "2026-11-21T02:00:00Z")},
			{Host: "h", ID: "b1", Time: bt.Add(48 * time.Hour), FirstSeen: at(t, "2026-11-23T08:00:00Z"), LastSeen: at(t, "2026-11-23T08:00:00Z")},
			{Host: "h", ID: "b2", Time: at(t, "2026-11-25T00:00:00Z"), FirstSeen: at(t, "2026-11-25T00:01:00Z"), LastSeen: at(t, "2026-11-25T00:01:00Z")},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Boots(h) =\n%+v\nwant\n%+v", got, want)
		}
		if got, err := s.Boots(ctx, "nobody"); err != nil || len(got) != 0 {
			t.Errorf("Boots(nobody) = %v, %v; want none", got, err)
		}
	})
}

// TestClaimSeesBoot: a claim records its boot in the same transaction.
func TestClaimSeesBoot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s, ctx := be.fresh(t), context.Background()
		now := at(t, "2026-11-20T02:00:03Z")
		b := store.Boot{Host: "h", ID: "b1", Time: at(t, "2026-11-01T00:00:00Z"), FirstSeen: now, LastSeen: now}
		claim(t, s, store.ClaimRequest{Run: store.Run{Task: "settle", Slot: at(t, "2026-11-20T02:00:00Z"),
			Trigger: store.TriggerSchedule, StartedAt: now, Host: "h", BootID: "b1"}, Boot: &b})
		got, err := s.Boots(ctx, "h")
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], b) {
			t.Errorf("Boots after a claim = %+v, %v; want [%+v]", got, err, b)
		}
	})
}

// TestAddRunsExpired: AddRuns records expiries in one go, with their reason
// codes; ExpiredCounts counts them by task and reason; an expired record
// settles its slot's interrupted run for the watermark.
func TestAddRunsExpired(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s, ctx := be.fresh(t), context.Background()
		if err := s.UpsertTask(ctx, store.Task{Name: "settle", Schedule: "0 2 * * *", TZ: "UTC",
			RegisteredAt: at(t, "2026-11-01T02:00:00Z"), MaxAge: 72 * time.Hour}); err != nil {
			t.Fatal(err)
		}
		if task, err := s.Task(ctx, "settle"); err != nil || task.MaxAge != 72*time.Hour {
			t.Fatalf("Task: max age %v, %v; want 72h", task.MaxAge, err)
		}
		id := mustClaim(t, s, store.Run{Task: "settle", Slot: at(t, "2026-11-02T02:00:00Z"), Trigger: store.TriggerSchedule,
			StartedAt: at(t, "2026-11-02T02:00:01Z"), Host: "h"})
		if _, err := s.Interrupt(ctx, id, at(t, "2026-11-02T03:00:00Z"), "gone"); err != nil {
			t.Fatal(err)
		}
		scanAt := at(t, "2026-11-20T08:00:00Z")
		var runs []store.Run
		for d, reason := range []string{store.ReasonMaxAge, store.ReasonMaxAge, store.ReasonPolicy} {
			runs = append(runs, store.Run{Task: "settle", Slot: at(t, "2026-11-02T02:00:00Z").AddDate(0, 0, d),
				Trigger: store.TriggerReplay, Status: store.StatusExpired, StartedAt: scanAt, EndedAt: scanAt,
				Host: "h", Error: "older than the catch-up window (3d)", Reason: reason})
		}
		got, err := s.AddRuns(ctx, runs)
		if err != nil || len(got) != 3 || got[0] <= id || got[1] != got[0]+1 || got[2] != got[1]+1 {
			t.Fatalf("AddRuns = %v, %v; want three ids in order after %d", got, err, id)
		}
		if r := getRun(t, s, got[0]); r.Status != store.StatusExpired || r.Reason != store.ReasonMaxAge {
			t.Errorf("run %d = %s/%q, want expired/max-age", got[0], r.Status, r.Reason)
		}
		counts, err := s.ExpiredCounts(ctx)
		want := map[string]map[string]int64{"settle": {store.ReasonMaxAge: 2, store.ReasonPolicy: 1}}
		if err != nil || !reflect.DeepEqual(counts, want) {
			t.Errorf("ExpiredCounts = %v, %v; want %v", counts, err, want)
		}
		through := at(t, "2026-11-10T00:00:00Z")
		if err := s.SetSettled(ctx, "settle", through); err != nil {
			t.Fatal(err)
		}
		if task, _ := s.Task(ctx, "settle"); !task.SettledThrough.Equal(through) {
			t.Errorf("watermark %v, want %v: the expiry settles the interrupted slot", task.SettledThrough, through)
		}
		if ids, err := s.AddRuns(ctx, nil); err != nil || len(ids) != 0 {
			t.Errorf("AddRuns(nil) = %v, %v", ids, err)
		}
	})
}

// TestResetClock: runs of slots later than now lose their slot (kept, with a
// note), expiries decided later than now go, the slot is free to claim
// again, the watermark and the registration come back; a dry run changes
// nothing; an unknown task is ErrNotFound.
func TestResetClock(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s, ctx := be.fresh(t), context.Background()
		glitch := at(t, "2031-01-01T02:00:03Z")
		if err := s.UpsertTask(ctx, store.Task{Name: "settle", Schedule: "0 2 * * *", TZ: "UTC",
			RegisteredAt: at(t, "2026-11-20T02:00:00Z"), SettledThrough: at(t, "2026-11-20T01:59:59Z")}); err != nil {
			t.Fatal(err)
		}
		good := mustClaim(t, s, store.Run{Task: "settle", Slot: at(t, "2026-11-20T02:00:00Z"), Trigger: store.TriggerSchedule,
			StartedAt: at(t, "2026-11-20T02:00:03Z"), Host: "h"})
		finish(t, s, good, store.StatusSucceeded, at(t, "2026-11-20T02:00:04Z"))
		bad := mustClaim(t, s, store.Run{Task: "settle", Slot: at(t, "2031-01-01T02:00:00Z"), Trigger: store.TriggerSchedule,
			StartedAt: glitch, Host: "h"})
		finish(t, s, bad, store.StatusSucceeded, glitch.Add(time.Second))
		if _, err := s.AddRuns(ctx, []store.Run{{Task: "settle", Slot: at(t, "2026-11-21T02:00:00Z"), Trigger: store.TriggerReplay,
			Status: store.StatusExpired, StartedAt: glitch, EndedAt: glitch, Reason: store.ReasonMaxAge}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSettled(ctx, "settle", glitch.Add(-5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		// The boot was last seen while the clock was ahead.
		if err := s.SeeBoot(ctx, store.Boot{Host: "h", ID: "b1", Time: at(t, "2026-11-01T00:00:00Z"), LastSeen: glitch}); err != nil {
			t.Fatal(err)
		}
		now, floor := at(t, "2026-11-25T08:00:00Z"), at(t, "2026-11-18T07:59:59Z")
		req := store.ClockReset{Task: "settle", Now: now, Floor: floor, Note: "detached", DryRun: true}
		res, err := s.ResetClock(ctx, req)
		if err != nil || len(res.Detached) != 1 || res.Detached[0].ID != bad || res.DeletedExpired != 1 ||
			!res.Settled.Equal(glitch.Add(-5*time.Minute)) || !res.Registered.IsZero() {
			t.Fatalf("dry ResetClock = %+v, %v", res, err)
		}
		if r := getRun(t, s, bad); !r.Slot.Equal(at(t, "2031-01-01T02:00:00Z")) {
			t.Fatalf("a dry run changed run %d: slot %v", bad, r.Slot)
		}
		req.DryRun = false
		if res, err = s.ResetClock(ctx, req); err != nil || len(res.Detached) != 1 || res.DeletedExpired != 1 {
			t.Fatalf("ResetClock = %+v, %v", res, err)
		}
		r := getRun(t, s, bad)
		if !r.Slot.IsZero() || r.Error != "detached" || r.Status != store.StatusSucceeded {
			t.Errorf("detached run = slot %v, error %q, status %s", r.Slot, r.Error, r.Status)
		}
		if task, _ := s.Task(ctx, "settle"); !task.SettledThrough.Equal(floor) {
			t.Errorf("watermark %v, want %v", task.SettledThrough, floor)
		}
		if latest, _ := s.LatestSlot(ctx, "settle"); !latest.Equal(at(t, "2026-11-20T02:00:00Z")) {
			t.Errorf("latest slot %v after the reset", latest)
		}
		if c, _ := s.ExpiredCounts(ctx); len(c) != 0 {
			t.Errorf("expiries left: %v", c)
		}
		// A boot seen "later than now" would cover every later outage
		// (its cause not-fired, not host-down): it was seen until now.
		if bs, err := s.Boots(ctx, "h"); err != nil || len(bs) != 1 || bs[0].LastSeen.After(now) {
			t.Errorf("boots after the reset: %+v, %v; want b1 last seen at %v at the latest", bs, err, now)
		}
		// In 2031 the slot comes for real: it is free.
		mustClaim(t, s, store.Run{Task: "settle", Slot: at(t, "2031-01-01T02:00:00Z"), Trigger: store.TriggerSchedule,
			StartedAt: glitch, Host: "h"})
		if res, err = s.ResetClock(ctx, store.ClockReset{Task: "nosuch", Now: now}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ResetClock(nosuch) = %+v, %v; want ErrNotFound", res, err)
		}
		// A task first registered while the clock was ahead comes back to now.
		if err := s.UpsertTask(ctx, store.Task{Name: "born", Schedule: "0 2 * * *", TZ: "UTC", RegisteredAt: glitch,
			SettledThrough: glitch.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
		if res, err = s.ResetClock(ctx, store.ClockReset{Task: "born", Now: now, Floor: floor}); err != nil || !res.Registered.Equal(glitch) {
			t.Fatalf("ResetClock(born) = %+v, %v", res, err)
		}
		if task, _ := s.Task(ctx, "born"); !task.RegisteredAt.Equal(now) || !task.SettledThrough.Equal(floor) {
			t.Errorf("born: registered %v, watermark %v; want %v and %v", task.RegisteredAt, task.SettledThrough, now, floor)
		}
	})
}
