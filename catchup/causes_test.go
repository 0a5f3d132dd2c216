package catchup

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestCauseOf(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return mustTime(t, s) }
	locked, one := exitLocked, 1
	boot1 := store.Boot{Host: "h", ID: "b1", Time: at("2026-11-01T00:00:00Z"),
		FirstSeen: at("2026-11-19T02:00:00Z"), LastSeen: at("2026-11-21T12:00:00Z")}
	// The same boot seen again with its boot time two days later: the clock
	// was stepped forward two days in between.
	stepped := store.Boot{Host: "h", ID: "b1", Time: at("2026-11-03T00:00:00Z"),
		FirstSeen: at("2026-11-25T08:00:00Z"), LastSeen: at("2026-11-25T09:00:00Z")}
	boot2 := store.Boot{Host: "h", ID: "b2", Time: at("2026-11-28T07:58:00Z"),
		FirstSeen: at("2026-11-28T08:00:00Z"), LastSeen: at("2026-11-28T08:00:00Z")}
	u := buildUptime([]store.Boot{boot1, stepped, boot2}, store.Boot{})
	stale := map[int64]bool{7: true}
	for _, tc := range []struct {
		name    string
		slot    string
		records []store.Run
		want    string
	}{
		{"before any known boot", "2026-10-30T02:00:00Z", nil, CauseUnknown},
		{"boot up since btime", "2026-11-10T02:00:00Z", nil, CauseNotFired},
		{"up, seen later", "2026-11-21T02:00:00Z", nil, CauseNotFired},
		{"clock step gap", "2026-11-23T02:00:00Z", nil, CauseClock},
		{"after the stepped span, before the next boot", "2026-11-26T02:00:00Z", nil, CauseHostDown},
		{"in the next boot", "2026-11-28T07:59:00Z", nil, CauseNotFired},
		{"lock skip", "2026-11-26T02:00:00Z", []store.Run{{ID: 3, Status: store.StatusSkipped, ExitCode: &locked}}, CauseLockBusy},
		{"unreachable", "2026-11-26T02:00:00Z", []store.Run{{ID: 3, Status: store.StatusSkipped, ExitCode: &locked,
			Reason: store.ReasonUnreachable}}, CauseUnreachable},
		{"lock file", "2026-11-26T02:00:00Z", []store.Run{{ID: 3, Status: store.StatusSkipped, ExitCode: &locked,
			Reason: store.ReasonLockFile}}, CauseLockFile},
		{"interrupted after a lock skip", "2026-11-26T02:00:00Z", []store.Run{
			{ID: 3, Status: store.StatusSkipped, ExitCode: &locked}, {ID: 4, Status: store.StatusInterrupted}}, CauseInterrupted},
		{"stale running", "2026-11-26T02:00:00Z", []store.Run{{ID: 7, Status: store.StatusRunning}}, CauseInterrupted},
		{"failed", "2026-11-26T02:00:00Z", []store.Run{{ID: 8, Status: store.StatusFailed, ExitCode: &one}}, CauseFailed},
		{"paused, given back by resume --replay-paused", "2026-11-10T02:00:00Z", []store.Run{{ID: 9, Status: store.StatusPaused,
			Reason: store.ReasonReplayPaused}}, CausePaused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := causeOf(at(tc.slot), tc.records, stale, u); got != tc.want {
				t.Errorf("cause of %s = %s, want %s", tc.slot, got, tc.want)
			}
		})
	}
}

func TestBuildUptimeCurrentBoot(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return mustTime(t, s) }
	seen := store.Boot{Host: "h", ID: "b1", Time: at("2026-11-01T00:00:00Z"),
		FirstSeen: at("2026-11-19T02:00:00Z"), LastSeen: at("2026-11-19T02:00:00Z")}
	for _, tc := range []struct {
		name    string
		boots   []store.Boot
		current store.Boot
		slot    string
		want    string
	}{
		{"the current boot reaches now", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b1", Time: at("2026-11-01T00:00:00Z"), FirstSeen: at("2026-11-23T08:00:00Z"),
				LastSeen: at("2026-11-23T08:00:00Z")}, "2026-11-22T02:00:00Z", CauseNotFired},
		{"a boot never recorded covers from its boot time", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b2", Time: at("2026-11-23T07:58:00Z"), FirstSeen: at("2026-11-23T08:00:00Z"),
				LastSeen: at("2026-11-23T08:00:00Z")}, "2026-11-23T07:59:00Z", CauseNotFired},
		{"between two boots", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b2", Time: at("2026-11-23T07:58:00Z"), FirstSeen: at("2026-11-23T08:00:00Z"),
				LastSeen: at("2026-11-23T08:00:00Z")}, "2026-11-22T02:00:00Z", CauseHostDown},
		{"the current boot seen with a later boot time: a step", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b1", Time: at("2026-11-04T00:00:00Z"), FirstSeen: at("2026-11-23T08:00:00Z"),
				LastSeen: at("2026-11-23T08:00:00Z")}, "2026-11-22T02:00:00Z", CauseClock},
		// 2 days of the 4 days and 6 hours since the last sighting were
		// stepped over: less likely than not this slot.
		{"a step of less than half the time since the last sighting", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b1", Time: at("2026-11-03T00:00:00Z"), FirstSeen: at("2026-11-23T08:00:00Z"),
				LastSeen: at("2026-11-23T08:00:00Z")}, "2026-11-22T02:00:00Z", CauseNotFired},
		{"an NTP correction of minutes in a day", []store.Boot{seen},
			store.Boot{Host: "h", ID: "b1", Time: at("2026-11-01T00:08:00Z"), FirstSeen: at("2026-11-20T02:30:00Z"),
				LastSeen: at("2026-11-20T02:30:00Z")}, "2026-11-19T14:00:00Z", CauseNotFired},
		{"unknown boot time: from the first sighting", nil,
			store.Boot{Host: "h", ID: "b1", FirstSeen: at("2026-11-23T08:00:00Z"), LastSeen: at("2026-11-23T08:00:00Z")},
			"2026-11-22T02:00:00Z", CauseUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := buildUptime(tc.boots, tc.current)
			if got := causeOf(at(tc.slot), nil, nil, u); got != tc.want {
				t.Errorf("cause of %s = %s, want %s", tc.slot, got, tc.want)
			}
		})
	}
}
