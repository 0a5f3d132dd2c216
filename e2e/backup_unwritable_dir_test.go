package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupUnwritableDirSaysTheFix: catchup backup PATH into a directory
// this user cannot write exits 2 with one line naming the ledger, PATH and
// the fix (before: `open PATH: permission denied`, no fix), and writes
// nothing.
func TestBackupUnwritableDirSaysTheFix(t *testing.T) {
	db, roots, as := nobodysLedgerBesideRoots(t)
	dest := filepath.Join(roots, "copy.db")
	b := as(newCatchup(t, db, "2026-03-02T03:00:00Z", "backup", dest))
	if code := b.run(t); code != 2 {
		t.Errorf("backup exited %d, want 2", code)
	}
	out := b.stderr.String()
	checkOneLine(t, "backup", out, dest)
	for _, want := range []string{db, "permission denied", "fix: "} {
		if !strings.Contains(out, want) {
			t.Errorf("backup does not say %q: %q", want, out)
		}
	}
	if _, err := os.Stat(dest); err == nil {
		t.Errorf("%s was written", dest)
	}
}

// nobodysLedgerBesideRoots is a ledger of nobody's, with one run recorded,
// and a directory of root's (0755) nobody cannot write, for a command that
// writes a file there: the ledger, the directory and how to run catchup as
// nobody. It skips the test when not run as root.
func nobodysLedgerBesideRoots(t *testing.T) (db, roots string, as func(*catchupProc) *catchupProc) {
	t.Helper()
	dir := reachableTempDir(t)
	cred := asNobody(t, dir)
	if cred == nil {
		t.Skip("needs root, to run catchup as nobody (root writes any directory)")
	}
	db = filepath.Join(dir, "state", "catchup.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	giveTo(t, filepath.Dir(db), cred)
	roots = filepath.Join(dir, "roots") // root's, 0755
	if err := os.Mkdir(roots, 0o755); err != nil {
		t.Fatal(err)
	}
	as = runningAs(t, dir, cred)
	seed := as(newCatchup(t, db, "2026-03-02T02:00:05Z", "run", "--task", "t", "--", "true"))
	if code := seed.run(t); code != 0 {
		t.Fatalf("seeding the ledger exited %d: %s", code, seed.stderr.String())
	}
	return db, roots, as
}
