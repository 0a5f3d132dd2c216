package crontab

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	tests := map[string]struct {
		in, want   string
		system     bool
		users      []string // the users this host has (nil: any)
		userFields []string // the commands that read as a system crontab's user field and command
		tasks      []string
		notes      []string
	}{
		"a system line's user that this host lacks is left as is": {
			in:     "0 3 * * * echo hi\n0 4 * * * root /opt/x\n",
			want:   "0 3 * * * echo hi\n0 4 * * * root catchup run --task x -- /opt/x\n",
			system: true,
			users:  []string{"root"},
			tasks:  []string{"x"},
			notes: []string{"line 1: left as is: user \"echo\" does not exist on this host: is this a user crontab? " +
				"(then read it without --system)"},
		},
		"plain words are prefixed": {
			in:    "0 2 * * * /usr/local/bin/backup.sh --full\n",
			want:  "0 2 * * * catchup run --task backup -- /usr/local/bin/backup.sh --full\n",
			tasks: []string{"backup"},
		},
		"shell syntax goes through sh -c": {
			in:    "*/15  *  * * *   cd /srv/app && ./sync.py > /tmp/sync.log 2>&1\n",
			want:  "*/15  *  * * *   catchup run --task sync -- sh -c 'cd /srv/app && ./sync.py > /tmp/sync.log 2>&1'\n",
			tasks: []string{"sync"},
		},
		"a shell builtin that is no program goes through sh -c": {
			// run as words, exec (or ., cd, ulimit...) was looked up in
			// PATH: not found, exit 127 at every slot
			in:    "0 1 * * * exec /opt/e.sh\n0 2 * * * . /opt/env\n",
			want:  "0 1 * * * catchup run --task e -- sh -c 'exec /opt/e.sh'\n0 2 * * * catchup run --task job -- sh -c '. /opt/env'\n",
			tasks: []string{"e", "job"},
		},
		"single quotes are escaped": {
			in:    "0 1 * * * echo 'it''s'\n",
			want:  "0 1 * * * catchup run --task echo -- sh -c 'echo '\\''it'\\'''\\''s'\\'''\n",
			tasks: []string{"echo"},
		},
		"stdin after percent stays outside": {
			in:    "0 3 * * * mail -s \"x\\%y\" root%hello%world\n",
			want:  "0 3 * * * catchup run --task mail -- sh -c 'mail -s \"x\\%y\" root'%hello%world\n",
			tasks: []string{"mail"},
		},
		"names are unique and overridable": {
			in:    "0 1 * * * backup.sh a\n0 2 * * * backup.sh b\n# catchup: task=nightly\n0 3 * * * backup.sh c\n",
			want:  "0 1 * * * catchup run --task backup -- backup.sh a\n0 2 * * * catchup run --task backup-2 -- backup.sh b\n# catchup: task=nightly\n0 3 * * * catchup run --task nightly -- backup.sh c\n",
			tasks: []string{"backup", "backup-2", "nightly"},
		},
		"a later comment's name is not derived for an earlier line": {
			in:    "@daily /opt/backup.sh\n# catchup: task=backup\n30 2 * * * /opt/other.sh\n",
			want:  "@daily catchup run --task backup-2 -- /opt/backup.sh\n# catchup: task=backup\n30 2 * * * catchup run --task backup -- /opt/other.sh\n",
			tasks: []string{"backup-2", "backup"},
		},
		"existing catchup names are taken": {
			in:    "0 1 * * * catchup run --task report -- report.sh\n0 2 * * * report.sh\n",
			want:  "0 1 * * * catchup run --task report -- report.sh\n0 2 * * * catchup run --task report-2 -- report.sh\n",
			tasks: []string{"report-2"},
		},
		"variables comments and catchup lines untouched": {
			in:    "SHELL=/bin/bash\nMAILTO=\"\"\n# 0 1 * * * commented.sh\n\n30 4 * * * /usr/bin/catchup --db /x run --task t -- true\n@daily nice -n 10 flock -n /tmp/l /opt/jobs/rotate-logs\n",
			want:  "SHELL=/bin/bash\nMAILTO=\"\"\n# 0 1 * * * commented.sh\n\n30 4 * * * /usr/bin/catchup --db /x run --task t -- true\n@daily catchup run --task rotate-logs -- nice -n 10 flock -n /tmp/l /opt/jobs/rotate-logs\n",
			tasks: []string{"rotate-logs"},
		},
		"crontab SHELL runs the command": {
			in:    "SHELL=/bin/bash\n0 1 * * * python3 -u /opt/etl.py | logger\n",
			want:  "SHELL=/bin/bash\n0 1 * * * catchup run --task etl -- /bin/bash -c 'python3 -u /opt/etl.py | logger'\n",
			tasks: []string{"etl"},
		},
		"system crontab keeps the user field": {
			in:     "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n",
			want:   "17 * * * * root catchup run --task run-parts -- sh -c 'cd / && run-parts --report /etc/cron.hourly'\n",
			system: true,
			tasks:  []string{"run-parts"},
		},
		"reboot and bad lines are left": {
			in:    "@reboot /opt/warm\n5 * * cmd\nFOO=1 bar\n",
			want:  "@reboot /opt/warm\n5 * * cmd\nFOO=1 bar\n",
			notes: []string{"line 1: @reboot", "line 2: left as is: expected 5 time fields before the command, found 3"},
		},
		"assignment prefix needs a shell": {
			in:    "0 1 * * * LANG=C sort-db\n",
			want:  "0 1 * * * catchup run --task sort-db -- sh -c 'LANG=C sort-db'\n",
			tasks: []string{"sort-db"},
		},
		"invalid override is noted": {
			in:    "# catchup: task=../x\n0 1 * * * job1\n",
			want:  "# catchup: task=../x\n0 1 * * * catchup run --task job1 -- job1\n",
			tasks: []string{"job1"},
			notes: []string{"line 1: invalid task name"},
		},
		"an override already used is noted": {
			in:    "0 1 * * * catchup run --task x -- a\n# catchup: task=x\n0 2 * * * b\n",
			want:  "0 1 * * * catchup run --task x -- a\n# catchup: task=x\n0 2 * * * catchup run --task x -- b\n",
			tasks: []string{"x"},
			notes: []string{"line 3: task name \"x\" is used by another line too"},
		},
		"a line that would not read as catchup is left": {
			in:     "0 0 1 1 * * x\n",
			want:   "0 0 1 1 * * x\n",
			system: true,
			notes:  []string{"line 1: left as is: wrapped, it would not read as a catchup line (user field \"*\" looks like a time field"},
		},
		"6 or 7 time fields are left, noted": {
			in:    "*/2 * * * * * echo six\n0 */5 * * * * 2027 /app/job.sh\n0 0 1 1 * 5min.sh\n",
			want:  "*/2 * * * * * echo six\n0 */5 * * * * 2027 /app/job.sh\n0 0 1 1 * catchup run --task 5min -- 5min.sh\n",
			tasks: []string{"5min"},
			notes: []string{"line 1: left as is: expected 5 time fields before the command, found 6: catchup reads cron's 5",
				"line 2: left as is: expected 5 time fields before the command, found 7"},
		},
		"a schedule cron refuses is left, noted": {
			in:    "61 2 * * * /usr/bin/backup\n0 2 31 2 * feb31\n0 0 * * 8 /bin/eight\n@daily ok\n",
			want:  "61 2 * * * /usr/bin/backup\n0 2 31 2 * feb31\n0 0 * * 8 /bin/eight\n@daily catchup run --task ok -- ok\n",
			tasks: []string{"ok"},
			notes: []string{"line 1: left as is: cron expression \"61 2 * * *\" has an invalid minute field",
				"line 2: left as is: cron expression \"0 2 31 2 *\" never fires",
				"line 3: left as is: cron expression \"0 0 * * 8\" has an invalid day-of-week field"},
		},
		"a user crontab read as a system one is left, noted": {
			in:     "0 3 * * * /bin/ok --flag\n0 4 * * * ./rel.sh\n0 5 * * * backup-user /opt/b\n",
			want:   "0 3 * * * /bin/ok --flag\n0 4 * * * ./rel.sh\n0 5 * * * backup-user catchup run --task b -- /opt/b\n",
			system: true,
			tasks:  []string{"b"},
			notes: []string{"line 1: left as is: \"/bin/ok\" in the user field is not a user name",
				"line 2: left as is: no command after the user field \"./rel.sh\": is this a user crontab? (then read it without --system)"},
		},
		"a system crontab read as a user one is left, noted": {
			in:    "30 4 * * * root /opt/x.sh\n0 5 * * *  root\n0 6 * * * rooted /opt/y\n",
			want:  "30 4 * * * root /opt/x.sh\n0 5 * * *  root\n0 6 * * * catchup run --task rooted -- rooted /opt/y\n",
			tasks: []string{"rooted"},
			notes: []string{"line 1: left as is: the command starts with \"root\", a user name and no command: is this a system crontab (a user field after the time fields, as /etc/crontab's)? then wrap it with --system",
				"line 2: left as is: the command starts with \"root\""},
		},
		"a system crontab's other user read as a user one is left, noted": {
			in:         "0 2 * * * backup /opt/backup.sh\n0 3 * * * postgres-tools dump\n0 4 * * * www-data-x /opt/y\n",
			want:       "0 2 * * * backup /opt/backup.sh\n0 3 * * * catchup run --task postgres-tools -- postgres-tools dump\n0 4 * * * catchup run --task www-data-x -- www-data-x /opt/y\n",
			userFields: []string{"backup /opt/backup.sh"},
			tasks:      []string{"postgres-tools", "www-data-x"},
			notes:      []string{"line 1: left as is: the command starts with \"backup\", a user name and no command: is this a system crontab (a user field after the time fields, as /etc/crontab's)? then wrap it with --system"},
		},
		"a secret taken for the user field is quoted masked": {
			in:     "0 3 * * * PGPASSWORD=S3cret pg_dump db\n0 4 * * * https_proxy=http://u:S3cret@proxy curl https://h\n",
			want:   "0 3 * * * PGPASSWORD=S3cret pg_dump db\n0 4 * * * https_proxy=http://u:S3cret@proxy curl https://h\n",
			system: true,
			notes: []string{"line 1: left as is: \"PGPASSWORD=(redacted)\" in the user field is not a user name",
				"line 2: left as is: \"https_proxy=http://u:***@proxy\" in the user field is not a user name"},
		},
		"CRLF line ends kept": {
			in:    "0 1 * * * a > log\r\n",
			want:  "0 1 * * * catchup run --task a -- sh -c 'a > log'\r\n",
			tasks: []string{"a"},
		},
		"no final newline kept": {
			in:    "0 1 * * * a",
			want:  "0 1 * * * catchup run --task a -- a",
			tasks: []string{"a"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var knownUser func(string) bool
			if tc.users != nil {
				knownUser = func(name string) bool { return slices.Contains(tc.users, name) }
			}
			userField := func(command string) bool { return slices.Contains(tc.userFields, command) }
			got, changes, notes := Wrap(tc.in, tc.system, knownUser, userField)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			var tasks []string
			for _, c := range changes {
				tasks = append(tasks, c.Task)
			}
			if !reflect.DeepEqual(tasks, tc.tasks) {
				t.Errorf("tasks %q, want %q", tasks, tc.tasks)
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %q", notes, tc.notes)
			}
			for i := range notes {
				if !strings.HasPrefix(notes[i], tc.notes[i]) {
					t.Errorf("note %q, want prefix %q", notes[i], tc.notes[i])
				}
			}
			// Round trip: every wrapped line parses as a catchup line with
			// its schedule, and wrapping again changes nothing.
			entries, errs := Parse(strings.NewReader(got), "t", tc.system)
			if len(errs) != 0 {
				t.Errorf("wrapped text does not parse: %v", errs)
			}
			byLine := map[int]Entry{}
			for _, e := range entries {
				byLine[e.Line] = e
			}
			for _, c := range changes {
				e, ok := byLine[c.Line]
				if !ok || e.Task != c.Task {
					t.Errorf("line %d not discovered as task %s: %+v", c.Line, c.Task, e)
				}
			}
			if again, more, _ := Wrap(got, tc.system, knownUser, userField); again != got || len(more) != 0 {
				t.Errorf("wrapping twice changed %d lines", len(more))
			}
		})
	}
}

func TestDeriveName(t *testing.T) {
	tests := map[string]string{
		"/usr/bin/php /var/www/artisan schedule:run": "artisan",
		"bash -c 'echo hi'":                          "bash",
		"timeout 1h /opt/bin/Big Job":                "Big",
		"cd /tmp; sleep 5; ./cleanup-tmp.sh":         "cleanup-tmp",
		"cd /tmp":                                    "cd",
		"'weird name!'":                              "weird-name",
		">/dev/null":                                 "job",
		"env A=1 B=2 /opt/x.v2.sh":                   "x.v2",
	}
	for cmd, want := range tests {
		t.Run(cmd, func(t *testing.T) {
			if got := DeriveName(cmd); got != want {
				t.Errorf("DeriveName(%q) = %q, want %q", cmd, got, want)
			}
		})
	}
}
