package catchup

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// The missed-slot rule after a schedule change whose watermark a dead run
// of the old schedule took back below the change: the new schedule's
// slots at or before the instant it took effect are missed only when a
// record names them; a dead run's slot the new schedule does not have is
// not missed but off the schedule (scan records it expired), unless a
// record settles it already.
func TestScheduleSinceRule(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return mustTime(t, "2026-03-02T"+s+":00Z") }
	since := at("10:29").Add(59 * time.Second) // the change: 0 * * * * -> 0,30 * * * *, or -> 0 * * * * in Berlin
	dead := func(slot string) store.Run {
		return store.Run{ID: 1, Task: "n", Slot: at(slot), Trigger: store.TriggerSchedule, Status: store.StatusInterrupted,
			StartedAt: at(slot).Add(5 * time.Second), Host: "testhost"}
	}
	expired := func(slot string) store.Run {
		return store.Run{ID: 2, Task: "n", Slot: at(slot), Trigger: store.TriggerReplay, Status: store.StatusExpired,
			StartedAt: at("11:00"), Host: "testhost", Reason: store.ReasonScheduleChanged}
	}
	lockSkip := func(slot string) store.Run {
		code := exitLocked
		return store.Run{ID: 3, Task: "n", Slot: at(slot), Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
			ExitCode: &code, StartedAt: at(slot), Host: "testhost"}
	}
	tests := map[string]struct {
		expr, tz    string
		since       time.Time
		runs        []store.Run
		wantMissed  []string
		wantOffSlot []string
	}{
		"the new schedule's slots before the change are not missed": {
			expr: "0,30 * * * *", tz: "UTC", since: since,
			wantMissed: []string{"10:30", "11:00", "11:30"},
		},
		"without a known change they are": {
			expr: "0,30 * * * *", tz: "UTC",
			wantMissed: []string{"09:30", "10:00", "10:30", "11:00", "11:30"},
		},
		"a slot of both schedules whose run died is missed": {
			expr: "0,30 * * * *", tz: "UTC", since: since, runs: []store.Run{dead("10:00")},
			wantMissed: []string{"10:00", "10:30", "11:00", "11:30"},
		},
		"a recorded lock skip before the change is judged by the rule": {
			expr: "0,30 * * * *", tz: "UTC", since: since, runs: []store.Run{lockSkip("09:30")},
			wantMissed: []string{"09:30", "10:30", "11:00", "11:30"},
		},
		"a dead run's slot the new schedule lacks is off it": {
			expr: "0 * * * *", tz: "UTC", since: since, runs: []store.Run{dead("09:30")},
			wantMissed: []string{"11:00"}, wantOffSlot: []string{"09:30"},
		},
		"the new zone lacks the old zone's slot": {
			expr: "30 * * * *", tz: "Asia/Kolkata", since: since, runs: []store.Run{dead("09:30")},
			wantMissed: []string{"11:00"}, wantOffSlot: []string{"09:30"},
		},
		"a paused slot given back that the new schedule lacks is off it": {
			expr: "0 * * * *", tz: "UTC", since: since, runs: []store.Run{{ID: 4, Task: "n", Slot: at("09:30"),
				Trigger: store.TriggerSchedule, Status: store.StatusPaused, Reason: store.ReasonReplayPaused, StartedAt: at("09:30")}},
			wantMissed: []string{"11:00"}, wantOffSlot: []string{"09:30"},
		},
		"a paused slot not given back settles it": {
			expr: "0 * * * *", tz: "UTC", since: since, runs: []store.Run{{ID: 4, Task: "n", Slot: at("09:30"),
				Trigger: store.TriggerSchedule, Status: store.StatusPaused, StartedAt: at("09:30")}},
			wantMissed: []string{"11:00"},
		},
		"once recorded expired it is off it no more": {
			expr: "0 * * * *", tz: "UTC", since: since, runs: []store.Run{dead("09:30"), expired("09:30")},
			wantMissed: []string{"11:00"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			now := at("11:45")
			m := testMachine("", now)
			m.Host = "testhost"
			task := store.Task{Name: "n", Schedule: tc.expr, TZ: tc.tz, RegisteredAt: at("08:00"), ScheduleSince: tc.since}
			from := at("09:29").Add(59 * time.Second) // the watermark the dead run took back
			j := judgeSlots(m, task, mustSchedule(t, tc.expr, tc.tz), MissedRule{Tolerance: time.Minute}, nil, nil, from, now, tc.runs)
			show := func(ts []time.Time) []string {
				var out []string
				for _, s := range ts {
					out = append(out, s.UTC().Format("15:04"))
				}
				return out
			}
			if got := show(j.slots); !slices.Equal(got, tc.wantMissed) {
				t.Errorf("missed %v, want %v", got, tc.wantMissed)
			}
			if got := show(j.offSchedule); !slices.Equal(got, tc.wantOffSlot) {
				t.Errorf("off the schedule %v, want %v", got, tc.wantOffSlot)
			}
		})
	}
}
