package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyOlderLedgerReaders: a ledger of schema version 9 (what the
// catchup before version 10 wrote) that this user cannot write, a
// read-only file or a read-only directory, is read by `ls`, `metrics` and
// `history` as it is, as a current one is (contract.md, ledger faults):
// version 10 changed only an index's condition, which a reader does not
// need. Before, they failed trying to migrate it (`apply migration 10:
// attempt to write a readonly database`), where the older catchup read it.
func TestReadOnlyOlderLedgerReaders(t *testing.T) {
	const day1, day3 = "2026-03-02T02:00:05Z", "2026-03-04T03:00:00Z"
	cases := map[string]func(t *testing.T, db string, cred *syscall.Credential){
		"read-only ledger file": func(t *testing.T, db string, cred *syscall.Credential) {
			giveTo(t, filepath.Dir(db), cred)
			os.Chmod(db, 0o444)
		},
		"read-only directory": func(t *testing.T, db string, cred *syscall.Credential) {
			giveTo(t, filepath.Dir(db), cred)
			os.Chmod(filepath.Dir(db), 0o555)
		},
	}
	for name, fault := range cases {
		t.Run(name, func(t *testing.T) {
			dir := reachableTempDir(t)
			db := filepath.Join(dir, "state", "catchup.db")
			cred := asNobody(t, dir)
			if cred == nil {
				t.Skip("needs root, to run catchup as nobody (root writes any file)")
			}
			seed := newCatchup(t, db, day1, "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC", "--", "false")
			if code := seed.run(t); code != 1 {
				t.Fatalf("seeding the ledger exited %d, want the command's 1: %s", code, seed.stderr.String())
			}
			// Back to version 9: its index condition, no version 10 row.
			ledgerRows(t, db, `DROP INDEX runs_task_failure_end`)
			ledgerRows(t, db, `CREATE INDEX runs_task_failure_end ON runs(task, ended_at) WHERE status IN ('failed', 'timeout', 'interrupted')`)
			ledgerRows(t, db, `DELETE FROM schema_version WHERE version = 10`)
			checkpointed(t, db)
			fault(t, db, cred)
			t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o700) })
			as := runningAs(t, dir, cred)
			for _, args := range [][]string{{"ls"}, {"history"}, {"metrics"}} {
				p := as(newCatchup(t, db, day3, args...))
				if code := p.run(t); code != 0 {
					t.Errorf("%s on a read-only version 9 ledger exited %d: %s", args[0], code, p.stderr.String())
					continue
				}
				if args[0] == "metrics" && !strings.Contains(p.stdout.String(), `catchup_last_failure_timestamp_seconds{task="t"} 1.772416805`) {
					t.Errorf("metrics: no latest failure of t:\n%s", p.stdout.String())
				}
			}
		})
	}
}
