package crontab

import (
	"strings"
	"testing"
)

func TestParseJobs(t *testing.T) {
	tests := map[string]struct {
		in            string
		task, run, tz string
		flags         map[string]string
		err           string
	}{
		"named by a comment": {in: "# catchup: task=report\n30 2 * * * /app/report.sh\n", task: "report", run: "/app/report.sh"},
		"catchup run line": {in: "*/5 * * * * catchup run --task sync --timeout 10m --no-capture -- /app/sync.sh > /dev/null\n",
			task: "sync", run: "/app/sync.sh > /dev/null", flags: map[string]string{"task": "sync", "timeout": "10m", "no-capture": "true"}},
		"comment beats --task": {in: "# catchup: task=a\n* * * * * catchup run --task b -- true\n", task: "a", run: "true",
			flags: map[string]string{"task": "b"}},
		"derived name":                           {in: "* * * * * /usr/bin/backup --all\n", task: DerivedName("/usr/bin/backup --all"), run: "/usr/bin/backup --all"},
		"CRON_TZ":                                {in: "CRON_TZ=Europe/Paris\n@daily true\n", task: DerivedName("true"), run: "true", tz: "Europe/Paris"},
		"stdin refused":                          {in: "* * * * * cat%hi\n", err: "%-stdin"},
		"a trailing % refused, not cut":          {in: "* * * * * echo load 50%\n", err: "c:1: the daemon does not feed a %-stdin to jobs: write \\% for a literal %"},
		"a lone % refused":                       {in: "* * * * * %\n", err: "%-stdin"},
		"\\% kept literal":                       {in: "# catchup: task=l\n* * * * * echo load 50\\%\n", task: "l", run: "echo load 50%"},
		"% in double quotes is cron's % too":     {in: "* * * * * echo \"disk at 90%\"\n", err: "%-stdin"},
		"% in single quotes is cron's % too":     {in: "* * * * * echo 'disk at 90%'\n", err: "%-stdin"},
		"an escaped backslash before %":          {in: "* * * * * echo a\\\\%\n", err: "%-stdin"},
		"a trailing % after catchup run --":      {in: "* * * * * catchup run --task t -- echo load 50%\n", err: "%-stdin"},
		"a trailing % in a catchup run flag":     {in: "* * * * * catchup run --task t --notify-cmd 'echo 50%' -- true\n", err: "%-stdin"},
		"reboot refused":                         {in: "@reboot true\n", err: "c:1: @reboot has no time slot, and the daemon fires timed lines only; fix: run the command before catchup daemon starts (the container's entrypoint), or drop the line"},
		"reboot run line refused, not as scan's": {in: "@reboot catchup run --task b -- true\n", err: "c:1: @reboot has no time slot, and the daemon fires timed lines only"},
		"short line":                             {in: "* * * true\n", err: "5 time fields"},
		"bad comment key":                        {in: "# catchup: name=x\n* * * * * true\n", err: `unknown key "name"`},
		"comment words after the name":           {in: "# catchup: task=f --retries 1\n* * * * * true\n", err: `"--retries" after task=f`},
		"bad task name":                          {in: "# catchup: task=-x\n* * * * * true\n", err: "task name"},
		"a NUL ends the line, as cron reads it":  {in: "# catchup: task=n\n* * * * * /app/job.sh\x00 --wipe\n", task: "n", run: "/app/job.sh"},
		"unknown flag":                           {in: "* * * * * catchup run --task t --frobnicate -- true\n", err: "--frobnicate"},
		"6 time fields refused":                  {in: "# catchup: task=six\n*/2 * * * * * echo six-fields\n", err: "c:2: expected 5 time fields before the command, found 6: catchup reads cron's 5"},
		"7 time fields refused":                  {in: "0 */5 * * * * * /app/job.sh\n", err: "found 7: catchup reads cron's 5"},
		"a year refused":                         {in: "0 0 1 1 * 2027 /app/job.sh\n", err: "found 6"},
		"a weekday range refused":                {in: "0 0 0 * * mon-fri /app/job.sh\n", err: "found 6"},
		"a command named like a weekday":         {in: "# catchup: task=m\n0 0 1 1 * mon -d ./app\n", task: "m", run: "mon -d ./app"},
		"only time fields":                       {in: "* * * * * * *\n", err: "found 7"},
		"digits in a command":                    {in: "* * * * * 5min.sh --at 5\n", task: DerivedName("5min.sh --at 5"), run: "5min.sh --at 5"},
		"a star in a command":                    {in: "* * * * * */bin/x 1 2\n", task: DerivedName("*/bin/x 1 2"), run: "*/bin/x 1 2"},
		"a quoted star":                          {in: "* * * * * '*' 1\n", task: DerivedName("'*' 1"), run: "'*' 1"},
		"command w":                              {in: "# catchup: task=who\n* * * * * w\n", task: "who", run: "w"},
		"a number after the command":             {in: "# catchup: task=s\n* * * * * sleep 5\n", task: "s", run: "sleep 5"},
		"catchup run line, 5 fields": {in: "*/5 * * * * catchup run --task x -- /app/sync.sh 5\n", task: "x", run: "/app/sync.sh 5",
			flags: map[string]string{"task": "x"}},
		"--wait DUR": {in: "* * * * * catchup run --task w --wait 5m -- echo ok\n", task: "w", run: "echo ok",
			flags: map[string]string{"wait": "5m"}},
		"bare --wait": {in: "* * * * * catchup run --task w --wait -- echo ok\n", task: "w", run: "echo ok",
			flags: map[string]string{"wait": "true"}},
		"--wait then a command word": {in: "* * * * * catchup run --task w --wait echo ok\n", task: "w", run: "echo ok",
			flags: map[string]string{"wait": "true"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			jobs, errs := ParseJobs(strings.NewReader(tc.in), "c")
			if tc.err != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err) {
					t.Fatalf("errors %v, want one with %q", errs, tc.err)
				}
				return
			}
			if len(errs) > 0 || len(jobs) != 1 {
				t.Fatalf("jobs %+v, errors %v", jobs, errs)
			}
			j := jobs[0]
			if j.Task != tc.task || j.Run != tc.run || j.TZ != tc.tz {
				t.Errorf("got task %q run %q tz %q, want %q %q %q", j.Task, j.Run, j.TZ, tc.task, tc.run, tc.tz)
			}
			for k, v := range tc.flags {
				if j.Flags[k] != v {
					t.Errorf("flag %s = %q, want %q", k, j.Flags[k], v)
				}
			}
		})
	}
	if a, b := DerivedName("/opt/x.sh"), DerivedName("/opt/x.sh"); a != b || !strings.HasPrefix(a, "x.sh-") {
		t.Errorf("derived names %q %q: want stable, from the basename", a, b)
	}
}
