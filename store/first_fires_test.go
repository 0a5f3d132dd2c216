package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFirstFires: each host's earliest fire of each task asked (a run the
// schedule triggered, by its slot, else its start; a skipped duplicate is
// a fire), never a replay, a backfill or a run by hand; a task no host
// fired is left out. BootHosts names every host whose boots are held.
func TestFirstFires(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s, ctx := be.fresh(t), context.Background()
		add := func(task, host, trigger, status string, slot time.Time, started string) {
			t.Helper()
			r := store.Run{Task: task, Host: host, Trigger: trigger, Status: status, Slot: slot, Attempt: 1,
				StartedAt: at(t, started), EndedAt: at(t, started).Add(time.Second)}
			if _, err := s.AddRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		sched, replay := store.TriggerSchedule, store.TriggerReplay
		add("j", "host-a", sched, store.StatusSucceeded, at(t, "2026-11-12T02:00:00Z"), "2026-11-12T02:00:01Z")
		add("j", "host-a", sched, store.StatusSucceeded, at(t, "2026-11-10T02:00:00Z"), "2026-11-10T02:00:01Z")
		add("j", "host-b", sched, store.StatusSkipped, at(t, "2026-11-12T02:00:00Z"), "2026-11-12T02:00:02Z")
		add("j", "host-c", replay, store.StatusSucceeded, at(t, "2026-11-01T02:00:00Z"), "2026-11-13T08:00:00Z")
		add("j", "host-c", store.TriggerBackfill, store.StatusSucceeded, at(t, "2026-11-02T02:00:00Z"), "2026-11-13T08:00:00Z")
		add("j", "host-d", store.TriggerManual, store.StatusSucceeded, time.Time{}, "2026-11-03T08:00:00Z")
		add("j", "host-e", sched, store.StatusSucceeded, time.Time{}, "2026-11-09T02:00:03Z") // before a scan registered its line
		add("k", "host-c", replay, store.StatusSucceeded, at(t, "2026-11-01T02:00:00Z"), "2026-11-13T08:00:00Z")
		add("other", "host-f", sched, store.StatusSucceeded, at(t, "2026-11-01T02:00:00Z"), "2026-11-01T02:00:01Z")
		got, err := s.FirstFires(ctx, []string{"j", "k", "nothing"}, []string{"host-a", "host-b", "host-c", "host-d", "host-e", "host-f", "host-g"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]time.Time{"j": {
			"host-a": at(t, "2026-11-10T02:00:00Z"),
			"host-b": at(t, "2026-11-12T02:00:00Z"),
			"host-e": at(t, "2026-11-09T02:00:03Z"),
		}}
		if len(got) != len(want) || len(got["j"]) != len(want["j"]) {
			t.Fatalf("FirstFires = %v, want %v", got, want)
		}
		for h, w := range want["j"] {
			if !got["j"][h].Equal(w) {
				t.Errorf("FirstFires[j][%s] = %v, want %v", h, got["j"][h], w)
			}
		}
		for _, b := range []store.Boot{{Host: "h2", ID: "b", FirstSeen: at(t, "2026-11-01T00:00:00Z"), LastSeen: at(t, "2026-11-01T00:00:00Z")},
			{Host: "h1", ID: "b", FirstSeen: at(t, "2026-11-01T00:00:00Z"), LastSeen: at(t, "2026-11-01T00:00:00Z")},
			{Host: "h1", ID: "c", FirstSeen: at(t, "2026-11-02T00:00:00Z"), LastSeen: at(t, "2026-11-02T00:00:00Z")}} {
			if err := s.SeeBoot(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		if hosts, err := s.BootHosts(ctx); err != nil || !reflect.DeepEqual(hosts, []string{"h1", "h2"}) {
			t.Errorf("BootHosts = %q, %v; want [h1 h2]", hosts, err)
		}
	})
}
