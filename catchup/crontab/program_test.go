package crontab

import "testing"

// TestProgram pins the job a catchup line's command runs, as scan checks
// the directory a relative one starts from (a root crontab line's
// ./sub/job.sh through another user's sub).
func TestProgram(t *testing.T) {
	tests := map[string]struct{ command, want string }{
		"after --":              {"catchup run --task a -- ./sub/job.sh --x", "./sub/job.sh"},
		"first positional":      {"catchup run --task a ./sub/job.sh", "./sub/job.sh"},
		"quoted":                {`catchup run --task a -- './my dir/job.sh'`, "./my dir/job.sh"},
		"global flags first":    {"catchup --db /x.db run --task a --timeout 5m -- bin/job", "bin/job"},
		"bare --wait":           {"catchup run --task a --wait -- sub/job", "sub/job"},
		"variable left as is":   {"catchup run --task a -- $HOME/job", "$HOME/job"},
		"no command":            {"catchup run --task a --", ""},
		"not a catchup line":    {"echo catchup run --task a -- x", ""},
		"unterminated quote":    {"catchup run --task 'a -- x", ""},
		"full path of catchup":  {"/usr/bin/catchup run --task a -- /opt/job", "/opt/job"},
		"operator ends command": {"catchup run --task a -- x/y; rm z", "x/y"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Program(tc.command); got != tc.want {
				t.Errorf("Program(%q) = %q, want %q", tc.command, got, tc.want)
			}
		})
	}
}
