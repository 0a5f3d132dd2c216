package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestRunRequest(t *testing.T) {
	tests := map[string]struct {
		args     []string          // run's flags, then -- and the command
		env      map[string]string // CATCHUP_REPLAY_SLOT, CRON_TZ
		wantErr  string
		wantWarn string
		check    func(t *testing.T, r requestView)
	}{
		"no task":                               {args: []string{"--", "true"}, wantErr: "--task is required"},
		"bad task name":                         {args: []string{"--task", "../etc", "--", "true"}, wantErr: `invalid task name "../etc"`},
		"no command":                            {args: []string{"--task", "t"}, wantErr: "no command given"},
		"bad policy":                            {args: []string{"--task", "t", "--replay", "sometimes", "--", "true"}, wantErr: `invalid --replay "sometimes"`},
		"negative duration":                     {args: []string{"--task", "t", "--timeout", "-1s", "--", "true"}, wantErr: "cannot be negative"},
		"bad slot":                              {args: []string{"--task", "t", "--slot", "noon", "--", "true"}, wantErr: `invalid --slot "noon"`},
		"slot at the zero time":                 {args: []string{"--task", "t", "--slot", "0001-01-01T00:00:00Z", "--", "true"}, wantErr: "--slot 0001-01-01T00:00:00Z is not a slot"},
		"slot at the zero time in another zone": {args: []string{"--task", "t", "--slot", "0001-01-01T09:00:00+09:00", "--", "true"}, wantErr: "--slot 0001-01-01T09:00:00+09:00 is not a slot"},
		"slot before the year 1":                {args: []string{"--task", "t", "--slot", "0000-12-31T02:00:00Z", "--", "true"}, wantErr: "--slot 0000-12-31T02:00:00Z is not a slot"},
		"empty slot given":                      {args: []string{"--task", "t", "--slot", "", "--", "true"}, wantErr: `invalid --slot ""`},
		"replay slot at the zero time":          {args: []string{"--task", "t", "--", "true"}, env: map[string]string{"CATCHUP_REPLAY_SLOT": "0001-01-01T00:00:00Z"}, wantErr: "CATCHUP_REPLAY_SLOT 0001-01-01T00:00:00Z is not a slot"},
		"bad replay slot":                       {args: []string{"--task", "t", "--", "true"}, env: map[string]string{"CATCHUP_REPLAY_SLOT": "soon"}, wantErr: `invalid CATCHUP_REPLAY_SLOT "soon"`},
		"bad zone":                              {args: []string{"--task", "t", "--tz", "Mars/Olympus", "--", "true"}, wantErr: `unknown time zone "Mars/Olympus"`},
		"bad cron":                              {args: []string{"--task", "t", "--cron", "@reboot", "--", "true"}, wantErr: `cron expression "@reboot" is not supported`},
		"a flag error comes before the zone's":  {args: []string{"--task", "t", "--tz", "Mars/Olympus", "--retries", "-1", "--", "true"}, wantErr: "cannot be negative"},
		"cron in its zone": {args: []string{"--task", "t", "--cron", "0 2 * * *", "--tz", "Europe/Berlin", "--", "echo", "hi"},
			check: func(t *testing.T, r requestView) {
				if r.expr != "0 2 * * *" || r.zone != "Europe/Berlin" || r.tz != "Europe/Berlin" || r.argv != "echo hi" {
					t.Errorf("request %+v", r)
				}
			}},
		"CRON_TZ is the zone when --tz is not given": {args: []string{"--task", "t", "--cron", "@daily", "--", "true"}, env: map[string]string{"CRON_TZ": "Asia/Tokyo"},
			check: func(t *testing.T, r requestView) {
				if r.zone != "Asia/Tokyo" || r.tz != "Asia/Tokyo" {
					t.Errorf("request %+v, want Asia/Tokyo", r)
				}
			}},
		"a bad CRON_TZ is refused": {args: []string{"--task", "t", "--cron", "@daily", "--", "true"}, env: map[string]string{"CRON_TZ": "Not/AZone"},
			wantErr: `CRON_TZ: unknown time zone "Not/AZone"`},
		"a bad CRON_TZ is refused beside a good --tz": {args: []string{"--task", "t", "--tz", "UTC", "--", "true"}, env: map[string]string{"CRON_TZ": "Not/AZone"},
			wantErr: `CRON_TZ: unknown time zone "Not/AZone"`},
		"a CRON_TZ that is a POSIX TZ string": {args: []string{"--task", "t", "--cron", "@daily", "--", "true"}, env: map[string]string{"CRON_TZ": "EST5EDT,M3.2.0,M11.1.0"},
			check: func(t *testing.T, r requestView) {
				if r.zone != "EST5EDT,M3.2.0,M11.1.0" || r.tz != "EST5EDT,M3.2.0,M11.1.0" {
					t.Errorf("request %+v, want the POSIX string", r)
				}
			}},
		"--tz wins over CRON_TZ, and says so": {args: []string{"--task", "t", "--tz", "UTC", "--cron", "@daily", "--", "true"}, env: map[string]string{"CRON_TZ": "Asia/Tokyo"},
			wantWarn: "catchup: --tz UTC disagrees with CRON_TZ=Asia/Tokyo, the zone cron fires this line in: the schedule is read in UTC " +
				"(--tz wins), so a fire stands for a slot other than the one cron fired; drop --tz, or make them agree",
			check: func(t *testing.T, r requestView) {
				if r.zone != "UTC" || r.tz != "UTC" {
					t.Errorf("request %+v, want UTC", r)
				}
			}},
		"a CRON_TZ spelled as TZ takes it": {args: []string{"--task", "t", "--cron", "@daily", "--", "true"}, env: map[string]string{"CRON_TZ": ":Europe/Berlin"},
			check: func(t *testing.T, r requestView) {
				if r.zone != "Europe/Berlin" || r.tz != "Europe/Berlin" {
					t.Errorf("request %+v, want Europe/Berlin", r)
				}
			}},
		"a --tz that is a zone file's path": {args: []string{"--task", "t", "--tz", "/usr/share/zoneinfo/Asia/Kathmandu", "--cron", "@daily", "--", "true"},
			env: map[string]string{"CRON_TZ": "Asia/Kathmandu"},
			check: func(t *testing.T, r requestView) {
				if r.zone != "Asia/Kathmandu" || r.tz != "Asia/Kathmandu" {
					t.Errorf("request %+v, want Asia/Kathmandu", r)
				}
			}},
		"--tz Local names no zone: CRON_TZ's, without a warning": {args: []string{"--task", "t", "--tz", "Local", "--cron", "@daily", "--", "true"},
			env: map[string]string{"CRON_TZ": "Asia/Tokyo"},
			check: func(t *testing.T, r requestView) {
				if r.zone != "Asia/Tokyo" || r.tz != "Asia/Tokyo" {
					t.Errorf("request %+v, want Asia/Tokyo", r)
				}
			}},
		"--max-age 0 warns: it reads as no window of the task's own": {args: []string{"--task", "t", "--max-age", "0", "--", "true"},
			wantWarn: "catchup: warning: --max-age 0 gives task t no catch-up window of its own: scan replays its missed slots back to scan's --max-age, " +
				"else 7d, as without --max-age (scan and catchup daemon refuse a crontab line with it); fix: drop --max-age, or give the window, such as 3d",
			check: func(t *testing.T, r requestView) {}},
		"--max-age 0s warns too": {args: []string{"--task", "t", "--max-age=0s", "--", "true"},
			wantWarn: "catchup: warning: --max-age 0 gives task t no catch-up window of its own: scan replays its missed slots back to scan's --max-age, " +
				"else 7d, as without --max-age (scan and catchup daemon refuse a crontab line with it); fix: drop --max-age, or give the window, such as 3d",
			check: func(t *testing.T, r requestView) {}},
		"a positive --max-age warns of nothing": {args: []string{"--task", "t", "--max-age", "3d", "--", "true"},
			check: func(t *testing.T, r requestView) {}},
		"explicit slot": {args: []string{"--task", "t", "--slot", "2026-01-02T03:00:00Z", "--", "true"},
			check: func(t *testing.T, r requestView) {
				if r.slot != "2026-01-02T03:00:00Z" || r.expr != "" {
					t.Errorf("request %+v", r)
				}
			}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var rf runFlags
			c := &cobra.Command{Use: "run"}
			bindRunFlags(c, &rf)
			if err := c.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			req, err := rf.request(c.Flags().Args(), func(k string) string { return tc.env[k] }, &warn)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(warn.String()); got != tc.wantWarn {
				t.Errorf("warning %q, want %q", got, tc.wantWarn)
			}
			v := requestView{tz: req.TZ, argv: strings.Join(req.Argv, " ")}
			if req.Schedule != nil {
				v.expr, v.zone = req.Schedule.Expr(), req.Schedule.Location().String()
			}
			if !req.Slot.IsZero() {
				v.slot = req.Slot.UTC().Format("2006-01-02T15:04:05Z")
			}
			tc.check(t, v)
		})
	}
}

// requestView is the part of a run request a case checks.
type requestView struct{ expr, zone, tz, argv, slot string }
