package catchup

import (
	"strings"
	"testing"
	"time"
)

// TestGapCatchUpFiresRunTheSlotOnce: at a spring-forward change cronie
// fires a fixed-time job once for each skipped time it matches, 10 s
// apart, after the change; catchup has one slot for them all. Those fires
// are the slot's own cron fires, not retries by hand: whether its run
// succeeded or failed, the job runs once (docs/slots.md), in any zone and
// for any size of gap. In a fall-back hour, the second fire of a wall time
// is the first one's slot again, and does not run a failed slot again
// either.
func TestGapCatchUpFiresRunTheSlotOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr, tz string
		slot     string   // the slot the fires stand for
		fires    []string // when cron fires the line, in order
		wantRuns int      // runs of slot
	}{
		"Berlin, four skipped quarters": {expr: "0,15,30,45 2 * * *", tz: "Europe/Berlin", slot: "2026-03-29T01:00:00Z",
			fires: []string{"2026-03-29T01:00:00.5Z", "2026-03-29T01:00:10Z", "2026-03-29T01:00:20Z", "2026-03-29T01:00:30Z"}},
		"Berlin, one skipped time, a second cron": {expr: "30 2 * * *", tz: "Europe/Berlin", slot: "2026-03-29T01:00:00Z",
			fires: []string{"2026-03-29T01:00:00.5Z", "2026-03-29T01:00:02Z"}},
		"Berlin, every minute of the gap, the last fire 10 min on": {expr: "0-59 2 * * *", tz: "Europe/Berlin", slot: "2026-03-29T01:00:00Z",
			fires: []string{"2026-03-29T01:00:00.5Z", "2026-03-29T01:00:10Z", "2026-03-29T01:05:00Z", "2026-03-29T01:09:50Z"}},
		"New York, two skipped times": {expr: "0,30 2 * * *", tz: "America/New_York", slot: "2026-03-08T07:00:00Z",
			fires: []string{"2026-03-08T07:00:00.5Z", "2026-03-08T07:00:10Z"}},
		"Lord Howe, a 30-minute gap": {expr: "0,15 2 * * *", tz: "Australia/Lord_Howe", slot: "2026-10-03T15:30:00Z",
			fires: []string{"2026-10-03T15:30:00.5Z", "2026-10-03T15:30:10Z"}},
		"Troll, a two-hour gap and the time at the change": {expr: "0 1-3 * * *", tz: "Antarctica/Troll", slot: "2026-03-29T01:00:00Z",
			fires: []string{"2026-03-29T01:00:00.5Z", "2026-03-29T01:00:10Z", "2026-03-29T01:00:20Z"}},
		"Chatham, two skipped times at 02:45 +12:45": {expr: "0,30 3 * * *", tz: "Pacific/Chatham", slot: "2026-09-26T14:00:00Z",
			fires: []string{"2026-09-26T14:00:00.5Z", "2026-09-26T14:00:10Z"}},
		"Santiago, midnight skipped": {expr: "0,30 0 * * *", tz: "America/Santiago", slot: "2026-09-06T04:00:00Z",
			fires: []string{"2026-09-06T04:00:00.5Z", "2026-09-06T04:00:10Z"}},
		"Havana, midnight skipped, a second cron": {expr: "0 0 * * *", tz: "America/Havana", slot: "2026-03-08T05:00:00Z",
			fires: []string{"2026-03-08T05:00:00.5Z", "2026-03-08T05:00:02Z"}},
		"Lord Howe fall-back, the second 01:45 half an hour on": {expr: "45 1 * * *", tz: "Australia/Lord_Howe", slot: "2026-04-04T14:45:00Z",
			fires: []string{"2026-04-04T14:45:05Z", "2026-04-04T15:15:05Z"}},
		"Santiago fall-back at midnight, the second Saturday 23:30": {expr: "30 23 * * *", tz: "America/Santiago", slot: "2026-04-05T02:30:00Z",
			fires: []string{"2026-04-05T02:30:05Z", "2026-04-05T03:30:05Z"}},
		"Havana fall-back at 01:00, the second 00:30": {expr: "30 0 * * *", tz: "America/Havana", slot: "2026-11-01T04:30:00Z",
			fires: []string{"2026-11-01T04:30:05Z", "2026-11-01T05:30:05Z"}},
		"Casablanca back for Ramadan, the second 02:30": {expr: "30 2 * * *", tz: "Africa/Casablanca", slot: "2026-02-15T01:30:00Z",
			fires: []string{"2026-02-15T01:30:05Z", "2026-02-15T02:30:05Z"}},
		"Berlin fall-back, the second 02:30": {expr: "30 2 * * *", tz: "Europe/Berlin", slot: "2026-10-25T00:30:00Z",
			fires: []string{"2026-10-25T00:30:05Z", "2026-10-25T01:30:05Z"}},
		"Berlin fall-back, quarters, the repeated hour": {expr: "0,15,30,45 2 * * *", tz: "Europe/Berlin", slot: "2026-10-25T00:45:00Z",
			fires: []string{"2026-10-25T00:45:02Z", "2026-10-25T01:00:02Z", "2026-10-25T01:15:02Z", "2026-10-25T01:30:02Z", "2026-10-25T01:45:02Z"}},
	}
	for name, tc := range tests {
		for _, code := range []int{0, 1} {
			t.Run(name+map[int]string{0: ", succeeded", 1: ", failed"}[code], func(t *testing.T) {
				slot := mustTime(t, tc.slot)
				f := newRunFixture(t, tc.fires[0])
				f.job.exitAt(t, slot, code)
				req := f.request(t)
				req.Schedule, req.TZ = mustSchedule(t, tc.expr, tc.tz), tc.tz
				for i, at := range tc.fires {
					f.now = mustTime(t, at)
					res := f.run(t, req)
					if i > 0 && res.ExitCode != 0 {
						t.Errorf("fire at %s: exit %d, want 0 (the slot's own fire again)", at, res.ExitCode)
					}
				}
				var ofSlot []string
				want := slot.In(mustSchedule(t, tc.expr, tc.tz).Location()).Format(time.RFC3339)
				for _, r := range f.job.runs(t) {
					if strings.HasPrefix(r, want+" ") {
						ofSlot = append(ofSlot, r)
					}
				}
				if len(ofSlot) != 1 {
					t.Errorf("the job ran %d times for slot %s, want once: %v", len(ofSlot), want, f.job.runs(t))
				}
			})
		}
	}
}
