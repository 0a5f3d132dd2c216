package schedule

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAccessorsAndAliases(t *testing.T) {
	loc := mustZone(t, "Europe/Berlin")
	s := mustParse(t, "  0 2 * * *\t", loc)
	if s.Expr() != "0 2 * * *" || s.Location() != loc {
		t.Errorf("Expr/Location = %q, %v", s.Expr(), s.Location())
	}
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for alias, expr := range map[string]string{
		"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
		"@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
		"@DAILY": "0 0 * * *",
	} {
		a, b := collect(mustParse(t, alias, loc), from, to), collect(mustParse(t, expr, loc), from, to)
		checkList(t, alias, a, b)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"@reboot", `cron expression "@reboot" is not supported: catchup needs a time-based schedule (5 fields or @hourly/@daily/@weekly/@monthly/@yearly)`},
		{"* * * * * *", `cron expression "* * * * * *" has 6 fields, want 5 (minute hour day-of-month month day-of-week)`},
		{"0 0 0 1 1 * 2025", `has 7 fields, want 5`},
		{"0 0 1 1 * 2025", `has 6 fields, want 5`},
		{"", `cron expression is empty`},
		{"   ", `cron expression is empty`},
		{"61 * * * *", `cron expression "61 * * * *" has an invalid minute field "61"`},
		{"a b c d e", `has an invalid minute field "a"`},
		{"* 24 * * *", `invalid hour field "24"`},
		{"* * 0 * *", `invalid day-of-month field "0"`},
		{"* * * 13 *", `invalid month field "13"`},
		{"* * * * 8", `invalid day-of-week field "8"`},
		{"5,x * * * *", `invalid minute field "5,x"`},
		{"*/0 * * * *", `invalid minute field "*/0"`},
		{"1,,2 * * * *", `invalid minute field "1,,2"`},
		{"* * * *", `has 4 fields, want 5`},
		{"@every 1h", `is not supported`},
		{"@always", `is not supported`},
		{"@everysecond", `is not supported`},
		{"@5minutes", `is not supported`},
		{"* * 1-5-L * *", `invalid day-of-month field`},
		{"* * * * L", `invalid day-of-week field "L"`},
	}
	for _, c := range cases {
		_, err := Parse(c.expr, time.UTC)
		if err == nil {
			t.Errorf("Parse(%q): no error", c.expr)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", c.expr, err, c.want)
		}
		if !strings.HasPrefix(err.Error(), "cron expression") {
			t.Errorf("Parse(%q) = %q, want it to start with \"cron expression\"", c.expr, err)
		}
		if msg := err.Error(); strings.ToLower(msg[:1]) != msg[:1] {
			t.Errorf("Parse(%q): message not lowercase: %q", c.expr, msg)
		}
	}
	if _, err := Parse("0 * * * *", nil); err == nil || !strings.Contains(err.Error(), "time zone") {
		t.Errorf("nil location: %v", err)
	}
	for _, ok := range []string{"0 0 L * *", "0 0 15W * *", "0 0 * * 5L", "0 0 * * 1#3", "0 0 ? * MON", "0 0 * jan-mar mon-fri", "0 0 * * 7", "0-59/10 */2 1,15 * *"} {
		if _, err := Parse(ok, time.UTC); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustParse(t, "*/5 * * * *", mustZone(t, "Europe/Berlin"))
	from := time.Date(2024, 10, 26, 0, 0, 0, 0, time.UTC)
	want := collect(s, from, from.Add(48*time.Hour))
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := collect(s, from, from.Add(48*time.Hour))
			if len(got) != len(want) {
				t.Errorf("concurrent Slots: %d, want %d", len(got), len(want))
			}
			s.Prev(from)
			s.Next(from)
		}()
	}
	wg.Wait()
}

func TestLoadZone(t *testing.T) {
	tests := map[string]struct {
		name string
		want *time.Location
		err  string
	}{
		"empty is local": {name: "", want: time.Local},
		"Local is local": {name: "Local", want: time.Local},
		"IANA name":      {name: "Europe/Berlin", want: mustZone(t, "Europe/Berlin")},
		"unknown, with hint": {name: "Mars/Olympus", err: `unknown time zone "Mars/Olympus": name a zone from tzdata like Europe/Berlin, ` +
			`or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0`},
		"a malformed POSIX TZ string, with why": {name: "EST5EDT,M3.2.0", err: `unknown time zone "EST5EDT,M3.2.0" (as a POSIX TZ string: ` +
			`want ,start[/time],end[/time] rules after the daylight-time name, like ,M3.2.0,M11.1.0): name a zone from tzdata like Europe/Berlin, ` +
			`or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0`},
		"a tzdata name that looks like a POSIX string": {name: "EST5EDT", want: mustZone(t, "EST5EDT")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := LoadZone(tc.name)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("LoadZone(%q) error = %v, want %q", tc.name, err, tc.err)
				}
				return
			}
			if err != nil || got.String() != tc.want.String() {
				t.Fatalf("LoadZone(%q) = %v, %v; want %v", tc.name, got, err, tc.want)
			}
		})
	}
}
