package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestReplayClaimRefusesARetiredTask: a claim that registers nothing and
// is a scan's replay or a backfill (given the registration its caller
// read, or a replay's trigger: a crontab line's run told only
// CATCHUP_REPLAY_SLOT) refuses, in its transaction, a task retired since
// it was read (`catchup forget`), also for a slot no expiry was recorded
// of (younger than the tolerance): nothing is written, and the task stays
// retired. A fire's claim (cron's, or a daemon's of its timer's slot) is
// granted: a fire registers a retired task anew (T1), not a replay.
func TestReplayClaimRefusesARetiredTask(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			trigger    string
			replay     bool
			registered time.Time
			refused    bool
		}{
			"replay, as read":                {trigger: store.TriggerReplay, replay: true, registered: t0, refused: true},
			"replay, no registration given":  {trigger: store.TriggerReplay, replay: true, refused: true},
			"backfill, as read":              {trigger: store.TriggerBackfill, registered: t0, refused: true},
			"cron's fire":                    {trigger: store.TriggerSchedule},
			"a daemon's fire of its timer's": {trigger: store.TriggerSchedule, replay: true},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				if err := s.UpsertTask(t.Context(), store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
					t.Fatal(err)
				}
				retired := t0.Add(3*time.Hour + 2*time.Minute)
				if _, err := s.Forget(t.Context(), task, retired, false); err != nil {
					t.Fatal(err)
				}
				slot := t0.Add(3 * time.Hour) // younger than the tolerance at the retirement: no expiry of it
				run := store.Run{Task: task, Slot: slot, Trigger: tc.trigger, StartedAt: retired.Add(time.Minute), Host: "h", PID: 1}
				got := storetest.Claim(t, s, store.ClaimRequest{Run: run, Replay: tc.replay, Registered: tc.registered})
				if got.Claimed == tc.refused || got.Retired != tc.refused {
					t.Fatalf("claim: claimed %v, retired %v; want refused %v", got.Claimed, got.Retired, tc.refused)
				}
				hist, err := s.History(t.Context(), store.HistoryFilter{Task: task, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: 0, false: 1}[tc.refused]; len(hist) != want {
					t.Errorf("the ledger holds %d runs of %s: %+v; want %d", len(hist), task, hist, want)
				}
				cur, err := s.Task(t.Context(), task)
				if err != nil || !cur.RetiredAt.Equal(retired) {
					t.Errorf("task %s after the claim: %+v, %v; want it still retired as of %s", task, cur, err, retired)
				}
			})
		}
	})
}
