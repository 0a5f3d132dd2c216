package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ledgerFault prepares a broken ledger at db and returns the credential to
// run catchup with (nil: the current user), or skips the test.
type ledgerFault func(t *testing.T, dir, db string) *syscall.Credential

// healthyLedger makes a valid ledger with one run in it (of a task without
// a schedule: scan finds nothing missed).
func healthyLedger(t *testing.T, db string) {
	t.Helper()
	seed := newCatchup(t, db, "", "run", "--task", "seed", "--", "true")
	if code := seed.run(t); code != 0 || seed.stderr.String() != "" {
		// A run the ledger could not record still exits 0: the fault
		// below would then be tried on a ledger without its run.
		t.Fatalf("seeding the ledger exited %d: %s", code, seed.stderr.String())
	}
}

// asNobody returns the credential of uid/gid 65534 when running as root
// (root ignores permission bits), or nil. dir, where that user's catchup
// and job work, must be reachable by others (see reachableTempDir).
func asNobody(t *testing.T, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	if !reachable(dir) {
		t.Skipf("user nobody cannot reach %s (no world-traversable temporary directory)", dir)
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}

// giveTo makes the user of cred (if any) the owner of the tree at dir: run
// as root or not, the ledger then belongs to whoever runs catchup, and only
// its mode bits stand in the way.
func giveTo(t *testing.T, dir string, cred *syscall.Credential) {
	t.Helper()
	if cred == nil {
		return
	}
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// reachableTempDir is a temporary directory, open to everyone (sticky), whose
// parents others may traverse: a child switched to another user works
// there. $TMPDIR may lie under a private directory; /tmp is tried next,
// and a directory others cannot reach is the last resort.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := ""
	for _, base := range []string{os.TempDir(), "/tmp"} {
		if d, err := os.MkdirTemp(base, "catchup-e2e-"); err == nil && reachable(d) {
			t.Cleanup(func() { os.RemoveAll(d) })
			dir = d
			break
		} else if err == nil {
			os.Remove(d)
		}
	}
	if dir == "" {
		dir = t.TempDir()
	}
	// Sticky, as /tmp: writable by all, yet no one else can move the
	// ledger's directory in it (store.CheckPrivate refuses it otherwise).
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil { // the job, maybe as nobody, writes here
		t.Fatal(err)
	}
	return dir
}

// reachable reports whether others may traverse dir and all its parents.
func reachable(dir string) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == "/" {
			return true
		}
	}
}

var ledgerFaults = map[string]ledgerFault{
	"garbage file": func(t *testing.T, dir, db string) *syscall.Credential {
		os.MkdirAll(filepath.Dir(db), 0o700)
		os.WriteFile(db, bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 4096), 0o600)
		return nil
	},
	"text file": func(t *testing.T, dir, db string) *syscall.Credential {
		os.MkdirAll(filepath.Dir(db), 0o700)
		os.WriteFile(db, []byte("this is not a ledger\n"), 0o600)
		return nil
	},
	"truncated ledger": func(t *testing.T, dir, db string) *syscall.Credential {
		healthyLedger(t, db)
		checkpointed(t, db) // the file holds every page, then loses them
		os.Truncate(db, 1000)
		return nil
	},
	"schema from a newer catchup": func(t *testing.T, dir, db string) *syscall.Credential {
		healthyLedger(t, db)
		ledgerRows(t, db, `INSERT INTO schema_version(version) VALUES (99) RETURNING version`)
		return nil
	},
	"location under a regular file": func(t *testing.T, dir, db string) *syscall.Credential {
		os.MkdirAll(filepath.Dir(filepath.Dir(db)), 0o700)
		os.WriteFile(filepath.Dir(db), []byte("a file, not a directory"), 0o600)
		return nil
	},
	"read-only ledger file": func(t *testing.T, dir, db string) *syscall.Credential {
		healthyLedger(t, db)
		cred := asNobody(t, dir)
		giveTo(t, filepath.Dir(db), cred)
		os.Chmod(db, 0o444)
		return cred
	},
	"read-only directory": func(t *testing.T, dir, db string) *syscall.Credential {
		// Without its -wal and -shm, which cannot be created: with them in
		// place the ledger stays writable (TestLedgerInReadOnlyDirectory).
		healthyLedger(t, db)
		checkpointed(t, db)
		cred := asNobody(t, dir)
		giveTo(t, filepath.Dir(db), cred)
		os.Chmod(filepath.Dir(db), 0o555)
		return cred
	},
	"full disk": func(t *testing.T, dir, db string) *syscall.Credential {
		if os.Geteuid() != 0 {
			t.Skip("mounting a small tmpfs needs root")
		}
		mnt := filepath.Dir(db)
		os.MkdirAll(mnt, 0o700)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
		healthyLedger(t, db)
		// An empty WAL, so that the next write needs new space (a WAL
		// reused from its start would not), and the -shm a reader needs.
		checkpointed(t, db)
		if code := newCatchup(t, db, "", "ls").run(t); code != 0 {
			t.Fatalf("ls of the checkpointed ledger exited %d", code)
		}
		// Fill the file system to the last byte.
		f, _ := os.Create(filepath.Join(mnt, "filler"))
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
		f.Close()
		return nil
	},
}

// TestLedgerFaults: with a ledger that cannot be opened or written, `run`
// still runs the command (exit = the command's), saying so in one line
// that names the file; with --strict it exits 125 without running it; the
// other commands exit 2 with one line naming the file.
func TestLedgerFaults(t *testing.T) {
	for name, fault := range ledgerFaults {
		t.Run(name, func(t *testing.T) {
			dir := reachableTempDir(t)
			db := filepath.Join(dir, "state", "catchup.db")
			cred := fault(t, dir, db)
			marker := filepath.Join(dir, "ran")
			as := runningAs(t, dir, cred)

			run := as(newCatchup(t, db, "", "run", "--task", "t", "--", "sh", "-c", "touch "+marker+"; exit 3"))
			if code := run.run(t); code != 3 {
				t.Fatalf("run exited %d, want the command's 3; stderr: %s", code, run.stderr.String())
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatal("the command did not run")
			}
			checkOneLine(t, "run", run.stderr.String(), filepath.Dir(db))

			os.Remove(marker)
			strict := as(newCatchup(t, db, "", "run", "--strict", "--task", "t", "--", "touch", marker))
			if code := strict.run(t); code != 125 {
				t.Fatalf("run --strict exited %d, want 125", code)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("run --strict ran the command")
			}
			checkOneLine(t, "run --strict", strict.stderr.String(), filepath.Dir(db))

			for _, args := range [][]string{{"ls"}, {"history"}, {"show", "1"}, {"scan"}} {
				p := as(newCatchup(t, db, "", args...))
				if name == "read-only directory" && args[0] != "scan" {
					// Without the -wal and -shm it cannot create, the
					// ledger is read as immutable: it answers questions.
					// scan opens it to write: it exits 2, below.
					if code := p.run(t); code != 0 {
						t.Errorf("%s on a ledger in a read-only directory exited %d, want 0: %s", args[0], code, p.stderr.String())
					}
					continue
				}
				if name == "read-only ledger file" || name == "full disk" {
					// A ledger one may read but not write still answers
					// questions; so does a scan with nothing to replay.
					// A scan that cannot record the notes its host's fires
					// left (the run above) keeps them and exits 2, saying so.
					want := 0
					if args[0] == "scan" {
						want = 2
					}
					if code := p.run(t); code != want {
						t.Errorf("%s on a read-only ledger exited %d, want %d: %s", args[0], code, want, p.stderr.String())
					}
					if want == 2 && !strings.Contains(p.stderr.String(), "of unrecorded fires stay") {
						t.Errorf("scan on a read-only ledger does not say that the notes stay: %s", p.stderr.String())
					}
					continue
				}
				if code := p.run(t); code != 2 {
					t.Errorf("%s exited %d, want 2 (stdout %q)", args[0], code, p.stdout.String())
				}
				checkOneLine(t, args[0], p.stderr.String(), filepath.Dir(db))
			}
		})
	}
}

// runningAs returns what makes a catchup process run as cred (nil: this
// user) with dir as its working directory and home: catchup and its job
// work in dir, which that user can reach (the host directory of newCatchup
// may not be), from a copy of the test binary there when cred is set.
func runningAs(t *testing.T, dir string, cred *syscall.Credential) func(*catchupProc) *catchupProc {
	t.Helper()
	bin := os.Args[0]
	if cred != nil { // nobody cannot run the test binary where go test put it
		bin = filepath.Join(dir, "catchup.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil || os.WriteFile(bin, data, 0o755) != nil {
			t.Fatalf("copy the test binary: %v", err)
		}
	}
	return func(p *catchupProc) *catchupProc {
		p.cmd.Path, p.cmd.Args[0] = bin, bin
		p.cmd.SysProcAttr.Credential = cred
		p.cmd.Dir = dir
		p.cmd.Env = append(p.cmd.Env, "HOME="+dir)
		return p
	}
}

// checkOneLine asserts a single "catchup: ..." line that names the ledger.
func checkOneLine(t *testing.T, what, stderr, where string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "catchup: ") || !strings.Contains(lines[0], where) {
		t.Errorf("%s: want one catchup: line naming %s, got %q", what, where, stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("%s: a Go panic: %s", what, stderr)
	}
}
