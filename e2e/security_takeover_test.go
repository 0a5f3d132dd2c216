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
	t.Parallel() // waits more than it works: see TestMain
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

// TestOwnLineWinsOverOtherUsersLine: root's own crontab line of a task
// that a line of another user's crontab (nobody's) registered first, and
// that comes first in scan's --crontab list, is registered and replayed as
// root's, and stays so: the other user's line held the task's name, and
// root's line was refused (a second line of one task) at every scan, its
// job never replayed.
func TestOwnLineWinsOverOtherUsersLine(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	theirs := filepath.Join(top, "nobody.crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		"0 * * * * catchup run --task settle -- touch taken\n"
	if err := os.WriteFile(theirs, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	first := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", theirs)
	if code := first.run(t); code != 0 {
		t.Fatalf("nobody's line: scan exited %d: %s", code, first.stderr.String())
	}
	rootLog := filepath.Join(t.TempDir(), "root-ran")
	mine := filepath.Join(t.TempDir(), "root.crontab")
	if err := os.WriteFile(mine, []byte(asCatchup+"=1\nPATH="+bin+":/usr/bin:/bin\n"+
		`0 * * * * catchup run --task settle -- sh -c 'echo "$CATCHUP_SLOT" >> `+rootLog+`'`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, now := range []string{"2026-01-01T01:30:00Z", "2026-01-01T03:30:00Z"} {
		scan := newCatchup(t, db, now, "scan", "--crontab", theirs, "--crontab", mine)
		code := scan.run(t)
		if code != 1 || !strings.Contains(scan.stderr.String(), "nobody.crontab:5: task settle is also the line at "+mine+":3") {
			t.Errorf("scan at %s exited %d, want 1 with nobody's line refused: %s%s", now, code, scan.stdout.String(), scan.stderr.String())
		}
	}
	if got := readLines(t, rootLog); len(got) != 3 {
		t.Errorf("root's line ran for %q, want the replays of 01:00, 02:00 and 03:00", got)
	}
	// nobody's crontab alone no longer takes the task back.
	alone := newCatchup(t, db, "2026-01-01T04:30:00Z", "scan", "--crontab", theirs)
	code := alone.run(t)
	if code != 1 || !strings.Contains(alone.stderr.String(), "nobody.crontab:5: task settle is registered by the line at "+mine+":3, root's") {
		t.Errorf("scan of nobody's crontab exited %d, want 1 with its line refused: %s%s", code, alone.stdout.String(), alone.stderr.String())
	}
	if got := readLines(t, rootLog); len(got) != 4 {
		t.Errorf("root's line ran for %q, want 04:00 too", got)
	}
}
