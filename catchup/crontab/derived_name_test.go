package crontab

import (
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup/redact"
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

// TestDerivedNameHashesNoSecret: the hash in a derived name is of the
// command as the ledger stores it, its secrets masked, so that the name
// (in the ledger, the log, ls and the metrics' labels, beside the masked
// command) does not let one test guesses of a weak secret offline: before,
// it was of the command as written, and the same line with another secret
// had another name. A command with no secret keeps its name
// (TestDerivedNameFixed).
func TestDerivedNameHashesNoSecret(t *testing.T) {
	for name, tc := range map[string]struct{ command, other string }{
		"an assignment":           {"PGPASSWORD=hunter2 pg_dump db", "PGPASSWORD=letmein pg_dump db"},
		"mysql -p":                {"mysqldump -phunter2 db > /srv/db.sql", "mysqldump -pletmein db > /srv/db.sql"},
		"a URL's password":        {"pg_dump postgresql://app:hunter2@db/app", "pg_dump postgresql://app:letmein@db/app"},
		"curl's user":             {"curl -fsu ops:hunter2 https://h/ping", "curl -fsu ops:letmein https://h/ping"},
		"a password flag":         {"/opt/bin/sync --password hunter2", "/opt/bin/sync --password letmein"},
		"an Authorization header": {`curl -H "Authorization: Bearer hunter2" https://h`, `curl -H "Authorization: Bearer letmein" https://h`},
	} {
		t.Run(name, func(t *testing.T) {
			got, other := DerivedName(tc.command), DerivedName(tc.other)
			if got != other {
				t.Errorf("DerivedName(%q) = %q, but %q with another secret: the name depends on the secret", tc.command, got, other)
			}
			if masked := DerivedName(redact.Command(tc.command)); got != masked {
				t.Errorf("DerivedName(%q) = %q, want %q, the name of the command as stored", tc.command, got, masked)
			}
		})
	}
}
