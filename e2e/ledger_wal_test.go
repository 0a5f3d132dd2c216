package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedgerInReadOnlyDirectory: the SQLite ledger keeps its -wal and -shm
// between runs, so a directory made read-only after they exist does not
// stop catchup: runs are recorded (the files are writable) and nothing is
// reported. Without them, the directory is a fault (TestLedgerFaults).
func TestLedgerInReadOnlyDirectory(t *testing.T) {
	dir := reachableTempDir(t)
	db := filepath.Join(dir, "state", "catchup.db")
	healthyLedger(t, db)
	cred := asNobody(t, dir)
	giveTo(t, filepath.Dir(db), cred)
	if err := os.Chmod(filepath.Dir(db), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o700) })
	as := runningAs(t, dir, cred)
	run := as(newCatchup(t, db, "", "run", "--strict", "--task", "seed", "--", "sh", "-c", "exit 3"))
	if code := run.run(t); code != 3 || run.stderr.String() != "" {
		t.Fatalf("run --strict in a read-only directory exited %d (want the job's 3), stderr %q", code, run.stderr.String())
	}
	h := as(newCatchup(t, db, "", "history", "seed"))
	if code := h.run(t); code != 0 || !strings.Contains(h.stdout.String(), "failed") || strings.Count(h.stdout.String(), "seed") != 2 {
		t.Fatalf("history exited %d, want the seed run and the failed one:\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
}

// TestBackupHoldsUncheckpointedRuns: `catchup backup` copies every run,
// those still only in the WAL included, into one file that reads alone.
func TestBackupHoldsUncheckpointedRuns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catchup.db")
	for range 3 {
		if code := newCatchup(t, db, "", "run", "--task", "b", "--", "true").run(t); code != 0 {
			t.Fatalf("run exited %d", code)
		}
	}
	if _, err := os.Stat(db + "-wal"); err != nil {
		t.Fatalf("no WAL beside the ledger (%v): this test needs runs that are only in the WAL", err)
	}
	dest := filepath.Join(dir, "copy", "backup.db")
	os.Mkdir(filepath.Dir(dest), 0o700)
	b := newCatchup(t, db, "", "backup", dest)
	if code := b.run(t); code != 0 {
		t.Fatalf("backup exited %d: %s", code, b.stderr.String())
	}
	fi, err := os.Stat(dest)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	// Alone: nothing else in its directory.
	got := ledgerRows(t, dest, `SELECT count(*) FROM runs WHERE task = 'b' AND status = 'succeeded'`)
	if got[0][0] != "3" {
		t.Fatalf("the backup holds %s succeeded runs of b, want 3", got[0][0])
	}
	again := newCatchup(t, db, "", "backup", dest)
	if code := again.run(t); code != 2 || !strings.Contains(again.stderr.String(), "already exists") {
		t.Fatalf("a backup onto an existing file exited %d: %s", code, again.stderr.String())
	}
}
