package catchup

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFireAfterADeadRunStartsAfterItsReplay: a scheduled fire whose claim
// finds an older slot's run dead (its catchup gone, its lock free here; on
// a shared ledger its lease run out) replays that slot first, then runs its
// own, and its record's start moves to when its own command starts, after
// the replay's end (SetStarted): a record that kept its claim's start
// counted the replay's time as its own, and read as having started before
// the older slot it ran after (F8). Both backends.
func TestFireAfterADeadRunStartsAfterItsReplay(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			var st store.Store = f.st
			if backend == "postgres" {
				st = testPostgres(t)
			}
			f.m.Lease = time.Minute
			if _, err := Run(ctx, st, nil, f.m, f.request(t)); err != nil { // 09:00 registers the task
				t.Fatalf("Run: %v", err)
			}
			// The fire of 10:00 died under its job: left running, its
			// heartbeat its start, its pid no process's.
			dead := store.Run{Task: "job", Slot: mustTime(t, "2026-03-01T10:00:00Z"), Trigger: store.TriggerSchedule, Attempt: 1,
				StartedAt: mustTime(t, "2026-03-01T10:00:05Z"), Host: f.m.Host, PID: deadPID, BootID: f.m.BootID}
			if c, err := st.Claim(ctx, store.ClaimRequest{Run: dead}); err != nil || !c.Claimed {
				t.Fatalf("the dead run's claim: %+v, %v", c, err)
			}
			// The fire of 11:00 claims at 11:00:10; the replay of 10:00's
			// job runs until 11:04:00 (the clock moves on as it starts).
			var mu sync.Mutex
			now := mustTime(t, "2026-03-01T11:00:10Z")
			f.m.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			replayedUntil := mustTime(t, "2026-03-01T11:04:00Z")
			f.m.OnReplayFirstStart = func(time.Time, int) { mu.Lock(); defer mu.Unlock(); now = replayedUntil }
			var replayed []time.Time
			f.m.OnReplayFirstEnd = func(slot time.Time, res RunResult) { replayed = append(replayed, slot) }
			res, err := Run(ctx, st, nil, f.m, f.request(t))
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("the fire of 11:00: %+v, %v", res, err)
			}
			if len(replayed) != 1 || !replayed[0].Equal(dead.Slot) {
				t.Fatalf("replayed first %v; want the dead run's slot %s", replayed, rfc(dead.Slot))
			}
			if got, want := f.job.runs(t), []string{"2026-03-01T09:00:00Z schedule", "2026-03-01T10:00:00Z replay",
				"2026-03-01T11:00:00Z schedule"}; !slices.Equal(got, want) {
				t.Errorf("the job ran %q; want %q (oldest first)", got, want)
			}
			hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var replay, own *store.Run
			for i, r := range hist {
				switch {
				case r.Slot.Equal(dead.Slot) && r.Trigger == store.TriggerReplay:
					replay = &hist[i]
				case r.Slot.Equal(mustTime(t, "2026-03-01T11:00:00Z")) && r.Trigger == store.TriggerSchedule:
					own = &hist[i]
				}
			}
			if replay == nil || own == nil {
				t.Fatalf("history %+v; want the replay of 10:00 and the fire of 11:00", hist)
			}
			if own.ID != res.Run.ID || own.Status != store.StatusSucceeded {
				t.Errorf("the fire's record %+v; want run %d, succeeded", *own, res.Run.ID)
			}
			if !own.StartedAt.Equal(replayedUntil) || own.StartedAt.Before(replay.EndedAt) {
				t.Errorf("the fire's record starts at %s (replay of 10:00 %s to %s); want %s, when its command started after the replay",
					rfc(own.StartedAt), rfc(replay.StartedAt), rfc(replay.EndedAt), rfc(replayedUntil))
			}
		})
	}
}
