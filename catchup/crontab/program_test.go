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

// TestShellProgram pins the program a daemon line's command starts, as
// the daemon checks the directory a relative one starts from.
func TestShellProgram(t *testing.T) {
	tests := map[string]struct{ command, want string }{
		"plain":               {"./sub/job.sh --x", "./sub/job.sh"},
		"after assignments":   {"A=1 B='x y' sub/job", "sub/job"},
		"quoted":              {`"./my dir/job.sh" x`, "./my dir/job.sh"},
		"operator ends it":    {"x/y && rm z", "x/y"},
		"only an assignment":  {"A=1", ""},
		"empty":               {"", ""},
		"unterminated quote":  {"'x/y", ""},
		"variable left as is": {"$HOME/job", "$HOME/job"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ShellProgram(tc.command); got != tc.want {
				t.Errorf("ShellProgram(%q) = %q, want %q", tc.command, got, tc.want)
			}
		})
	}
}
