package crontab

import "testing"

// TestDerivedNameFixed pins the names derived from commands: a task's name
// is its identity in the ledger, so a change here would orphan the history
// of every unnamed daemon task (and replay its slots under a new name).
func TestDerivedNameFixed(t *testing.T) {
	for name, tc := range map[string]struct{ command, want string }{
		"path basename and flags": {"/usr/bin/backup --all", "backup-3187f988"},
		"variable in the path":    {"$HOME/bin/run-it.sh > /dev/null 2>&1", "run-it.sh-4f21bf6c"},
		"bare word":               {"true", "true-b5bea41b"},
		"no usable character":     {"___ weird", "job-5af528a9"},
		"quoted argument":         {"echo 'hi'", "echo-25bd0455"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := DerivedName(tc.command); got != tc.want {
				t.Errorf("DerivedName(%q) = %q, want %q (a changed derivation renames tasks in existing ledgers)", tc.command, got, tc.want)
			}
		})
	}
}
