package e2e

import (
	"os"
	"os/exec"
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

// TestCopyReadableReadOnly: a copy of the ledger in one file, no -wal or
// -shm beside it, that its reader cannot write (a 0400 file in a 0555
// directory: a restored copy on a read-only mount, or on a full disk)
// stays readable by the commands that only read (L4), and is left as it
// was. A copy `catchup backup` made is in rollback mode: turning it to WAL
// at the open, as a writer does, is a write. A copy of a checkpointed
// ledger's file is in WAL mode: SQLite reads one only through a -wal and
// -shm, which the reader cannot create; with no -wal, every run is in the
// file, read as immutable. A command that changes the ledger is refused as
// before, naming the fix.
func TestCopyReadableReadOnly(t *testing.T) {
	for name, copyTo := range map[string]func(t *testing.T, db, dest string){
		"catchup backup": func(t *testing.T, db, dest string) {
			if code := newCatchup(t, db, "", "backup", dest).run(t); code != 0 {
				t.Fatalf("backup exited %d", code)
			}
		},
		"the file of a checkpointed ledger": func(t *testing.T, db, dest string) {
			ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
			data, err := os.ReadFile(db)
			if err != nil || os.WriteFile(dest, data, 0o600) != nil {
				t.Fatalf("copy the ledger: %v", err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := reachableTempDir(t)
			db := filepath.Join(dir, "state", "catchup.db")
			healthyLedger(t, db)
			if code := newCatchup(t, db, "", "run", "--task", "s", "--cron", "0 0 1 1 *", "--tz", "UTC", "--", "true").run(t); code != 0 {
				t.Fatalf("registering task s exited %d", code)
			}
			dest := filepath.Join(dir, "copy", "catchup.db")
			if err := os.Mkdir(filepath.Dir(dest), 0o700); err != nil {
				t.Fatal(err)
			}
			copyTo(t, db, dest)
			cred := asNobody(t, dir)
			giveTo(t, filepath.Dir(dest), cred)
			if err := os.Chmod(dest, 0o400); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Dir(dest), 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Dir(dest), 0o700) })
			before, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			as := runningAs(t, dir, cred)
			for _, args := range [][]string{{"ls"}, {"ls", "--missed"}, {"history", "seed"}, {"show", "--task", "seed", "--last"}, {"metrics"}} {
				p := as(newCatchup(t, dest, "", args...))
				want := "seed" // seed ran by hand: nothing of it is missed
				if args[len(args)-1] == "--missed" {
					want = ""
				}
				if code := p.run(t); code != 0 || !strings.Contains(p.stdout.String(), want) || p.stderr.String() != "" {
					t.Errorf("catchup %s on a copy it cannot write exited %d, want 0 and %q:\n%s%s",
						strings.Join(args, " "), code, want, p.stdout.String(), p.stderr.String())
				}
			}
			// A backup and a prune --dry-run change nothing either: they
			// read it as it is (found by review: refused at the open, the
			// ledger read-only).
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o700); err != nil {
				t.Fatal(err)
			}
			giveTo(t, out, cred)
			for _, args := range [][]string{{"backup", filepath.Join(out, "b.db")}, {"prune", "--dry-run", "--older-than", "30d"}} {
				p := as(newCatchup(t, dest, "", args...))
				if code := p.run(t); code != 0 || p.stderr.String() != "" {
					t.Errorf("catchup %s on a copy it cannot write exited %d, want 0:\n%s%s",
						strings.Join(args, " "), code, p.stdout.String(), p.stderr.String())
				}
			}
			if b := as(newCatchup(t, filepath.Join(out, "b.db"), "", "ls")); b.run(t) != 0 || !strings.Contains(b.stdout.String(), "seed") {
				t.Errorf("the backup of a copy it cannot write does not list task seed:\n%s%s", b.stdout.String(), b.stderr.String())
			}
			// A command that changes the ledger is refused at the open,
			// naming the file in the way and the fix (L4).
			for _, args := range [][]string{{"pause", "seed"}, {"backfill", "--task", "s", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T00:00:00Z"}} {
				w := as(newCatchup(t, dest, "", args...))
				if code := w.run(t); code != 2 || !strings.Contains(w.stderr.String(), "cannot be written by") {
					t.Errorf("%s on a copy it cannot write exited %d, want 2 naming the file or directory and the fix:\n%s", args[0], code, w.stderr.String())
				}
			}
			names, _ := filepath.Glob(dest + "*")
			after, err := os.ReadFile(dest)
			if err != nil || string(after) != string(before) || len(names) != 1 {
				t.Errorf("the copy changed (%v), or files appeared beside it: %q", err, names)
			}
		})
	}
}

// TestCopyReadableOnAFullDisk: the copies of TestCopyReadableReadOnly on a
// full file system. SQLite can still create an empty -wal and -shm there,
// then fails to grow the -shm (SQLITE_IOERR_SHMSIZE): a reader reads the
// file as it is all the same (an empty -wal holds no run), and a command
// that changes the ledger says to free space.
func TestCopyReadableOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "catchup.db")
	healthyLedger(t, db)
	backup := filepath.Join(dir, "backup.db")
	if code := newCatchup(t, db, "", "backup", backup).run(t); code != 0 {
		t.Fatalf("backup exited %d", code)
	}
	checkpointed(t, db)
	mnt := filepath.Join(dir, "full")
	os.Mkdir(mnt, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	copies := map[string]string{"catchup backup": backup, "the file of a checkpointed ledger": db}
	for name, src := range copies {
		data, err := os.ReadFile(src)
		dest := filepath.Join(mnt, strings.ReplaceAll(name, " ", "-")+".db")
		if err != nil || os.WriteFile(dest, data, 0o600) != nil {
			t.Fatalf("copy %s: %v", name, err)
		}
		copies[name] = dest
	}
	f, _ := os.Create(filepath.Join(mnt, "filler"))
	for buf := make([]byte, 4096); ; {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	for name, dest := range copies {
		h := newCatchup(t, dest, "", "history", "seed")
		if code := h.run(t); code != 0 || !strings.Contains(h.stdout.String(), "seed") {
			t.Errorf("%s: history on a full disk exited %d, want 0 and the seed run:\n%s%s", name, code, h.stdout.String(), h.stderr.String())
		}
		p := newCatchup(t, dest, "", "pause", "seed")
		if code := p.run(t); code != 2 || !strings.Contains(p.stderr.String(), "free space on the filesystem holding") {
			t.Errorf("%s: pause on a full disk exited %d, want 2 and to free space:\n%s", name, code, p.stderr.String())
		}
	}
}
