package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyLedgerBackfillSaysRunItAgain: a backfill that cannot record
// its claim (a read-only ledger file) runs nothing and says, in one line
// naming the file and the fix, that a backfill again runs the slot: never
// that the next scan replays it, which no scan does for a slot before the
// task's registration (the backfill's reason to be).
func TestReadOnlyLedgerBackfillSaysRunItAgain(t *testing.T) {
	const day1, day3 = "2026-03-02T02:00:05Z", "2026-03-04T03:00:00Z"
	dir := reachableTempDir(t)
	db := filepath.Join(dir, "state", "catchup.db")
	cred := asNobody(t, dir)
	if cred == nil {
		t.Skip("needs root, to run catchup as nobody (root writes any file)")
	}
	marker := filepath.Join(dir, "ran")
	runAs := runningAs(t, dir, cred)
	// A working directory backfill trusts (dir is 1777), and notes where
	// nobody may write them.
	work := filepath.Join(dir, "work")
	as := func(p *catchupProc) *catchupProc {
		p = runAs(p)
		p.cmd.Dir = work
		p.cmd.Env = append(p.cmd.Env, "CATCHUP_NOTE_DIR="+filepath.Join(dir, "notes"))
		return p
	}
	for _, d := range []string{filepath.Dir(db), work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		giveTo(t, d, cred)
	}
	seed := as(newCatchup(t, db, day1, "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC", "--", "touch", marker))
	if code := seed.run(t); code != 0 {
		t.Fatalf("seeding the ledger exited %d: %s", code, seed.stderr.String())
	}
	os.Remove(marker)
	os.Chmod(db, 0o444)

	// 2026-02-27 to 03-01: slots before the registration, which no scan replays.
	b := as(newCatchup(t, db, day3, "backfill", "--task", "t", "--from", "2026-02-27T00:00:00Z", "--to", "2026-03-01T23:00:00Z"))
	if code := b.run(t); code != 2 {
		t.Errorf("backfill exited %d, want 2 (stdout %q)", code, b.stdout.String())
	}
	out := b.stderr.String()
	checkFix(t, "backfill", out, db, "chmod u+w "+db)
	if strings.Contains(out, "scan") || strings.Contains(out, "replay") {
		t.Errorf("backfill blames or promises a scan's replay: %q", out)
	}
	if !strings.Contains(out, "not backfilling slot 2026-02-27T02:00:00Z of t") ||
		!strings.Contains(out, "catchup backfill runs it once the ledger can be written") {
		t.Errorf("backfill does not name the slot it did not run and that a backfill again runs it: %q", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the job ran, its claim unrecorded")
	}
}
