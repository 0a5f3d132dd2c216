package catchup

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestEarlyFire: cron fired the 02:00 line, but catchup's clock reads a
// moment before 02:00 (a clock stepped back by NTP). A fire at most
// earlyFire before a slot, in a minute the expression does not match,
// stands for that slot: today's runs on time, and yesterday's failed slot
// is not run again. A fire further off is not that slot's; and a late fire
// of a failed slot that is not its own fire runs it again as what it is, a
// retry by hand (trigger manual), saying so.
func TestEarlyFire(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr       string
		firstExit  int    // the 11-19 02:00 run's exit status
		at         string // the second fire
		want       []string
		wantNotice string
	}{
		"yesterday failed, today's fire 0.2 s early": {expr: "0 2 * * *", firstExit: 3, at: "2026-11-20T01:59:59.8Z",
			want: []string{"2026-11-19T02:00:00Z schedule", "2026-11-20T02:00:00Z schedule"}, wantNotice: "before slot 2026-11-20T02:00:00Z"},
		"yesterday succeeded, today's fire 0.2 s early": {expr: "0 2 * * *", at: "2026-11-20T01:59:59.8Z",
			want: []string{"2026-11-19T02:00:00Z schedule", "2026-11-20T02:00:00Z schedule"}},
		"5 s early": {expr: "0 2 * * *", at: "2026-11-20T01:59:55Z",
			want: []string{"2026-11-19T02:00:00Z schedule", "2026-11-20T02:00:00Z schedule"}},
		"6 s early is not today's fire": {expr: "0 2 * * *", at: "2026-11-20T01:59:54Z",
			want: []string{"2026-11-19T02:00:00Z schedule"}, wantNotice: "slot 2026-11-19T02:00:00Z of job already succeeded"},
		"a cron-shaped fire is its own minute's": {expr: "0,1 2 * * *", at: "2026-11-19T02:00:59.5Z",
			want: []string{"2026-11-19T02:00:00Z schedule"}, wantNotice: "duplicate fire of slot 2026-11-19T02:00:00Z"},
		"a late fire of a failed slot is a retry by hand": {expr: "0 2 * * *", firstExit: 3, at: "2026-11-19T14:00:00Z",
			want: []string{"2026-11-19T02:00:00Z schedule", "2026-11-19T02:00:00Z manual"}, wantNotice: "a retry by hand"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-11-19T02:00:01Z")
			var notices []string
			f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
			f.job.exitAt(t, mustTime(t, "2026-11-19T02:00:00Z"), tc.firstExit)
			req := f.request(t)
			req.Schedule = mustSchedule(t, tc.expr, "UTC")
			if res := f.run(t, req); res.ExitCode != tc.firstExit {
				t.Fatalf("first fire: exit %d, want %d", res.ExitCode, tc.firstExit)
			}
			notices = nil
			f.now = mustTime(t, tc.at)
			f.run(t, req)
			if got := f.job.runs(t); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("the job ran for %q, want %q", got, tc.want)
			}
			if all := strings.Join(notices, "\n"); !strings.Contains(all, tc.wantNotice) {
				t.Errorf("notices %q, want one with %q", all, tc.wantNotice)
			}
		})
	}
}
