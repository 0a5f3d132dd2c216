package crontab

import (
	"strings"
	"testing"
)

// FuzzWrap: Wrap never panics, changes only the lines it reports (and
// keeps their number), gives each wrapped line a valid task name, and is
// idempotent: wrapping its output changes nothing; and Parse discovers
// every wrapped line as a catchup line of that task.
func FuzzWrap(f *testing.F) {
	for _, seed := range []string{
		"", "\n", "-", "@", "@daily", "@reboot x", "0 2 * * * a b c\n", "0 2 * * * 'unterminated\n",
		"SHELL=/bin/bash\n*/5 * * * * cd /x && ./y >/dev/null 2>&1 % in\\%put\n",
		"# catchup: task=n\n@hourly env A=1 nice flock -n /l timeout 5 python3 -u /o/x.py\r\n",
		"0 2 * * * root run-parts /etc/cron.daily\n", "0 2 * * * catchup run --task a -- a\n0 3 * * * a\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, in string, system bool) {
		out, changes, _ := Wrap(in, system, nil, nil)
		inLines, outLines := strings.Split(in, "\n"), strings.Split(out, "\n")
		if len(inLines) != len(outLines) {
			t.Fatalf("line count changed: %d -> %d", len(inLines), len(outLines))
		}
		changed := map[int]bool{}
		for _, c := range changes {
			changed[c.Line] = true
			if !taskNameRE.MatchString(c.Task) {
				t.Errorf("line %d: invalid task name %q", c.Line, c.Task)
			}
		}
		for i := range inLines {
			if !changed[i+1] && inLines[i] != outLines[i] {
				t.Errorf("line %d changed without a report: %q -> %q", i+1, inLines[i], outLines[i])
			}
		}
		entries, _ := Parse(strings.NewReader(out), "t", system)
		found := map[int]string{}
		for _, e := range entries {
			found[e.Line] = e.Task
		}
		for _, c := range changes {
			if found[c.Line] != c.Task {
				t.Errorf("wrapped line %d %q not discovered as %s", c.Line, c.New, c.Task)
			}
		}
		if again, more, _ := Wrap(out, system, nil, nil); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q -> %q", out, again)
		}
	})
}
