package catchup

import (
	"testing"
	"time"
)

// TestSlotAtStart: a fire without a slot stands for the latest slot at or
// before its start within tolerance, or for the slot it came up to
// earlyFire before in a minute the expression does not match (cron fired
// it, this clock lags), as a fire that reads its schedule does (earlyFor).
func TestSlotAtStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expr, tz, start, want string // want "" for none
	}{
		{name: "on time", expr: "0 2 * * *", tz: "UTC", start: "2026-11-18T02:00:03Z", want: "2026-11-18T02:00:00Z"},
		{name: "3 s early", expr: "0 2 * * *", tz: "UTC", start: "2026-11-18T01:59:57Z", want: "2026-11-18T02:00:00Z"},
		{name: "6 s early: none", expr: "0 2 * * *", tz: "UTC", start: "2026-11-18T01:59:54Z"},
		{name: "past tolerance: none", expr: "0 2 * * *", tz: "UTC", start: "2026-11-18T02:10:00Z"},
		{name: "early in a minute that matches is that minute's", expr: "* * * * *", tz: "UTC",
			start: "2026-11-18T01:59:57Z", want: "2026-11-18T01:59:00Z"},
		{name: "early for a +05:45 slot", expr: "0 3 * * *", tz: "Asia/Kathmandu",
			start: "2026-11-17T21:14:58Z", want: "2026-11-17T21:15:00Z"},
		{name: "early for a spring-forward slot", expr: "15 2 * * *", tz: "Australia/Lord_Howe",
			start: "2026-10-03T15:29:57Z", want: "2026-10-03T15:30:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := time.Parse(time.RFC3339, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := slotAtStart(mustSchedule(t, tc.expr, tc.tz), start, DefaultTolerance)
			got := ""
			if ok {
				got = p.UTC().Format(time.RFC3339)
			}
			if got != tc.want {
				t.Errorf("slot %q, want %q", got, tc.want)
			}
		})
	}
}
