package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOtherUsersLineTakesNoTaskOver: a line of another user's crontab
// (nobody's) that names a task root registered is refused by root's scan,
// which registered it over root's task before: the task became nobody's
// line (replayed as nobody, who needs no credentials of the ledger to write
// the line), and root's own job was never replayed again. The ledger is a
// PostgreSQL one that the line names.
func TestOtherUsersLineTakesNoTaskOver(t *testing.T) {
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	rootLog := filepath.Join(t.TempDir(), "root-ran")
	reg := newCatchup(t, db, "2026-01-01T00:00:05Z", "run", "--task", "rootjob", "--cron", "0 * * * *",
		"--", "sh", "-c", `echo "$CATCHUP_SLOT" >> `+rootLog)
	if code := reg.run(t); code != 0 {
		t.Fatalf("root's fire exited %d: %s", code, reg.stderr.String())
	}
	crontab := filepath.Join(top, "crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		"0 * * * * catchup run --task rootjob -- touch taken\n"
	if err := os.WriteFile(crontab, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "--crontab", crontab)
	code := scan.run(t)
	if code != 1 || !strings.Contains(scan.stderr.String(), "crontab:5: task rootjob is registered by uid 0's catchup run") {
		t.Errorf("root's scan exited %d, want 1 with the line refused: %s%s", code, scan.stdout.String(), scan.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, "taken")); err == nil {
		t.Error("root's scan replayed root's task through nobody's line")
	}
	if got := readLines(t, rootLog); len(got) != 3 {
		t.Errorf("root's job ran for %q, want its fire and the replays of 01:00 and 02:00", got)
	}
}
