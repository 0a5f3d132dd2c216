package crontab

import (
	"strings"
	"testing"
)

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

// TestDerivedNameSkipsAssignments: a line's leading VAR=value words are its
// environment, often a secret (PGPASSWORD=...): the name comes from the
// program after them, so that no value reaches the name (which the ledger,
// the logs, lock files and metrics carry).
func TestDerivedNameSkipsAssignments(t *testing.T) {
	for name, tc := range map[string]struct{ command, prog, secret string }{
		"password":           {"PGPASSWORD=hunter3 psql -c 'select 1'", "psql-", "hunter3"},
		"quoted value":       {"TOKEN='a b/hunter4' /opt/bin/sync.sh", "sync.sh-", "hunter4"},
		"two assignments":    {"A=1 B=hunter5 backup", "backup-", "hunter5"},
		"a URL in the value": {"CATCHUP_DB='postgres://u:hunter6@db/x' catchup run --task a -- true", "catchup-", "hunter6"},
		"only an assignment": {"X=hunter7", "job-", "hunter7"},
		// a word with an = is no name however it is spelt: the subshell's
		// named the task PGPASSWORDhunter8-... in the ledger, logs and
		// metrics (its name is job-...: the words stop at the parenthesis)
		"in a subshell":   {"(PGPASSWORD=hunter8 pg_dump db)", "job-", "hunter8"},
		"an escaped name": {`PGPASS\WORD=hunter9 pg_dump`, "pg_dump-", "hunter9"},
		"a quoted word":   {`"PGPASSWORD=hunter10" pg_dump`, "pg_dump-", "hunter10"},
	} {
		t.Run(name, func(t *testing.T) {
			got := DerivedName(tc.command)
			if !strings.HasPrefix(got, tc.prog) || strings.Contains(got, tc.secret) {
				t.Errorf("DerivedName(%q) = %q, want %s... (the program, past the assignments)", tc.command, got, tc.prog)
			}
		})
	}
}
