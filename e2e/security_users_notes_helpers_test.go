package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// The helpers of the tests of root's readers and users' notes
// (security_users_notes*_test.go): nobody's crontab line, fires and
// catchup processes, and a DSN the server refuses.

// nobodysLine is a crontab of nobody's (owned by nobody, in a directory
// every user can traverse) with one line, task who, recording into the
// PostgreSQL ledger db, its job appending its slot and trigger to
// HOME/who.log; it returns the crontab and nobody's home.
func nobodysLine(t *testing.T, db string) (bin, crontab, home string) {
	t.Helper()
	bin = testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	home = userDir(t, top, "nobody-home", 65534, 65534)
	crontab = filepath.Join(top, "crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		`0 * * * * catchup run --task who -- sh -c 'echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> who.log'` + "\n"
	writeFileOf(t, crontab, line, 65534)
	return bin, crontab, home
}

// writeFileOf writes text to path, mode 600, owned by uid (and its group,
// of the same number): a user's crontab or a file in their directory.
func writeFileOf(t *testing.T, path, text string, uid int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// nobodysFire is the fire cron makes of nobody's line at now, as nobody,
// with cron's environment (no CATCHUP_STATE_DIR nor CATCHUP_NOTE_DIR: its
// notes go where any fire of nobody's puts them), into ledger db; flags go
// before the command.
func nobodysFire(t *testing.T, bin, home, db, now string, flags ...string) *catchupProc {
	t.Helper()
	args := append(append([]string{"run", "--task", "who", "--cron", "0 * * * *"}, flags...),
		"--", "sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> who.log`)
	return nobodysCatchup(t, bin, home, db, now, args...)
}

// nobodysCatchup is `catchup args...` run by nobody, in nobody's home, with
// cron's environment (as nobodysFire), on ledger db.
func nobodysCatchup(t *testing.T, bin, home, db, now string, args ...string) *catchupProc {
	t.Helper()
	p := newCatchup(t, db, now, args...)
	p.cmd.Path, p.cmd.Args[0] = filepath.Join(bin, "catchup"), filepath.Join(bin, "catchup")
	p.cmd.Dir = home
	p.cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	var env []string
	for _, kv := range p.cmd.Env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "CATCHUP_STATE_DIR" && k != "CATCHUP_NOTE_DIR" && k != "PATH" {
			env = append(env, kv)
		}
	}
	p.cmd.Env = append(env, "HOME="+home, "PATH="+bin+":/usr/bin:/bin")
	return p
}

// refusedRole is ledger db under a role the server refuses: the fire
// cannot reach it, and keeps its note in the lock directory of db.
func refusedRole(db string) string {
	return regexp.MustCompile(`^postgres://[^@]*@`).ReplaceAllString(db, "postgres://nosuchrole@")
}

// nobodysNotes is the one notes file of unrecorded fires in nobody's
// lock directory under home.
func nobodysNotes(t *testing.T, home string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".unrecorded.jsonl"))
	if len(found) != 1 {
		t.Fatalf("nobody's notes of unrecorded fires: found %q, want one file", found)
	}
	return found[0]
}

// nobodysTwoFires registers nobody's line (root's first scan at 00:30),
// then fires it twice while the shared ledger refuses nobody: at 01:00
// with --fail-open (it runs, unrecorded, and leaves a note), at 02:00
// without (refused, exit 75, noted too).
func nobodysTwoFires(t *testing.T, db, bin, crontab, home string) {
	t.Helper()
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 ||
		!strings.Contains(p.stderr.String(), "unrecorded") {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T02:00:05Z"); p.run(t) != 75 {
		t.Fatalf("nobody's 02:00 fire was not refused: %s", p.stderr.String())
	}
}
