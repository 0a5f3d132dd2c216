package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyLedgerSaysTheFix: a ledger this user cannot write (the file,
// or its directory without the -wal and -shm) makes `run`, `pause` and a
// scan with a slot to replay say so in one line naming the file and the
// fix (chmod, chown, or another ledger), with no stack trace; `ls` and
// `history` still read a read-only file.
func TestReadOnlyLedgerSaysTheFix(t *testing.T) {
	const day1, day3 = "2026-03-02T02:00:05Z", "2026-03-04T03:00:00Z"
	cases := map[string]struct {
		fault   func(t *testing.T, db string, cred *syscall.Credential)
		fix     func(db string, cred *syscall.Credential) string
		readers bool // ls and history still work
	}{
		"read-only ledger file": {
			fault: func(t *testing.T, db string, cred *syscall.Credential) {
				giveTo(t, filepath.Dir(db), cred)
				os.Chmod(db, 0o444)
			},
			fix:     func(db string, _ *syscall.Credential) string { return "chmod u+w " + db },
			readers: true,
		},
		"read-only ledger file, -wal and -shm": { // SQLite makes them with the file's mode: one chmod fixes all three
			fault: func(t *testing.T, db string, cred *syscall.Credential) {
				checkpointed(t, db)
				os.WriteFile(db+"-wal", nil, 0o444)
				os.WriteFile(db+"-shm", make([]byte, 32768), 0o444)
				giveTo(t, filepath.Dir(db), cred)
				os.Chmod(db, 0o444)
			},
			fix: func(db string, _ *syscall.Credential) string {
				return "chmod u+w " + db + " " + db + "-wal " + db + "-shm,"
			},
			readers: true,
		},
		"ledger file of root's": {
			fault: func(t *testing.T, db string, cred *syscall.Credential) {
				giveTo(t, filepath.Dir(db), cred)
				os.Lchown(db, 0, 0)
				os.Chmod(db, 0o644)
			},
			fix:     func(db string, cred *syscall.Credential) string { return "chown 65534 " + db },
			readers: true,
		},
		"immutable ledger file": { // chattr +i: its mode says writable, and chmod would not help
			fault: func(t *testing.T, db string, cred *syscall.Credential) {
				giveTo(t, filepath.Dir(db), cred)
				if out, err := exec.Command("chattr", "+i", db).CombinedOutput(); err != nil {
					t.Skipf("chattr +i: %v: %s (needs root, chattr and a file system with the flag)", err, out)
				}
				t.Cleanup(func() { exec.Command("chattr", "-i", db).Run() })
			},
			fix:     func(db string, _ *syscall.Credential) string { return "chattr -i " + db },
			readers: true,
		},
		"read-only directory": {
			fault: func(t *testing.T, db string, cred *syscall.Credential) {
				checkpointed(t, db)
				giveTo(t, filepath.Dir(db), cred)
				os.Chmod(filepath.Dir(db), 0o555)
			},
			fix: func(db string, _ *syscall.Credential) string { return "chmod u+w " + filepath.Dir(db) },
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := reachableTempDir(t)
			db := filepath.Join(dir, "state", "catchup.db")
			cred := asNobody(t, dir)
			if cred == nil {
				t.Skip("needs root, to run catchup as nobody (root writes any file)")
			}
			seed := newCatchup(t, db, day1, "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC", "--", "true")
			if code := seed.run(t); code != 0 {
				t.Fatalf("seeding the ledger exited %d: %s", code, seed.stderr.String())
			}
			c.fault(t, db, cred)
			t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o700) })
			as := runningAs(t, dir, cred)
			fix := c.fix(db, cred)

			run := as(newCatchup(t, db, day3, "run", "--task", "m", "--", "true"))
			if code := run.run(t); code != 0 {
				t.Fatalf("run exited %d, want the command's 0: %s", code, run.stderr.String())
			}
			checkFix(t, "run", run.stderr.String(), db, fix)
			for _, args := range [][]string{{"pause", "t"}, {"scan"}} {
				p := as(newCatchup(t, db, day3, args...))
				if code := p.run(t); code != 2 {
					t.Errorf("%s exited %d, want 2 (stdout %q)", args[0], code, p.stdout.String())
				}
				out := p.stderr.String()
				if args[0] == "scan" { // its last line: the notes the run above left stay, and why
					lines := strings.Split(strings.TrimSpace(out), "\n")
					out = lines[len(lines)-1]
				}
				checkFix(t, args[0], out, db, fix)
			}
			if !c.readers {
				return
			}
			for _, args := range [][]string{{"ls"}, {"history"}} {
				p := as(newCatchup(t, db, day3, args...))
				if code := p.run(t); code != 0 {
					t.Errorf("%s on a read-only ledger exited %d: %s", args[0], code, p.stderr.String())
				}
			}
		})
	}
}

// checkFix asserts one catchup: line naming the ledger and the fix.
func checkFix(t *testing.T, what, stderr, db, fix string) {
	t.Helper()
	checkOneLine(t, what, stderr, db)
	if !strings.Contains(stderr, fix) {
		t.Errorf("%s: the line does not say %q: %q", what, fix, stderr)
	}
}
