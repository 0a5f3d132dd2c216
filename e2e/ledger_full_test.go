package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unwritableLedgers make a healthy ledger at db unwritable and return the
// function that makes it writable again. Root ignores permission bits, so
// as root the fault is a full file system (a small tmpfs).
var unwritableLedgers = map[string]func(t *testing.T, db string) (free func()){
	"full disk": func(t *testing.T, db string) func() {
		if os.Geteuid() != 0 {
			t.Skip("mounting a small tmpfs needs root")
		}
		mnt := filepath.Dir(db)
		os.MkdirAll(mnt, 0o700)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
		return func() {}
	},
	"read-only ledger file": func(t *testing.T, db string) func() {
		if os.Geteuid() == 0 {
			t.Skip("root ignores permission bits (the full disk variant covers root)")
		}
		return func() { os.Chmod(db, 0o600) }
	},
}

// fill fills the file system holding dir to the last byte and returns the
// function that frees it.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	return func() { os.Remove(filler) }
}

// TestScanUnwritableLedger: a scan whose ledger cannot be written replays
// nothing (a replay runs only once its claim is recorded), stops before
// the next replay saying why, and exits non-zero; scans repeated meanwhile
// run nothing either; once the ledger is writable again, the next scan runs
// each missed slot exactly once. Both kinds of task: an argv task
// registered by run --cron, and a crontab line (replayed through its inner
// catchup run).
func TestScanUnwritableLedger(t *testing.T) {
	for name, fault := range unwritableLedgers {
		t.Run(name, func(t *testing.T) {
			_, db := tempLedger(t)
			free := fault(t, db)
			w := t.TempDir()
			job := `echo "$CATCHUP_SLOT" >> "$W/`
			reg := newCatchup(t, db, "2026-11-20T10:00:00Z", "run", "--task", "argv", "--cron", "0 * * * *", "--tz", "UTC",
				"--", "sh", "-c", job+`argv.log"`)
			reg.cmd.Env = append(reg.cmd.Env, "W="+w)
			if code := reg.run(t); code != 0 {
				t.Fatalf("registering run exited %d: %s", code, reg.stderr.String())
			}
			crontab := filepath.Join(w, "crontab")
			bin := filepath.Join(w, "catchup") // a crontab line names the catchup binary
			if err := os.Symlink(os.Args[0], bin); err != nil {
				t.Fatal(err)
			}
			line := "0 * * * * " + bin + " run --task line -- sh -c 'echo \"$CATCHUP_SLOT\" >> \"$W/line.log\"'\n"
			os.WriteFile(crontab, []byte("CATCHUP_E2E_AS_CATCHUP=1\nW="+w+"\n"+line), 0o644)
			first := newCatchup(t, db, "2026-11-20T10:30:00Z", "scan", "-v", "--crontab", crontab)
			if code := first.run(t); code != 0 {
				t.Fatalf("registering scan exited %d: %s", code, first.stderr.String())
			}
			os.Remove(filepath.Join(w, "argv.log"))
			os.Remove(filepath.Join(w, "line.log"))

			// A run that holds the ledger open meanwhile, as a long job
			// does: the disk fills while the ledger is open, its WAL in use.
			holder := newCatchup(t, db, "2026-11-20T13:30:00Z", "run", "--task", "holder", "--",
				"sh", "-c", `touch "$W/held"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
			holder.cmd.Env = append(holder.cmd.Env, "W="+w)
			if err := holder.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { touch(t, filepath.Join(w, "release")); holder.cmd.Wait() })
			waitFile(t, filepath.Join(w, "held"))
			var unfill func()
			if name == "full disk" {
				unfill = fill(t, filepath.Dir(db))
			} else {
				os.Chmod(db, 0o444)
			}
			// The crontab line alone too: its replay goes through the inner
			// catchup run, which must refuse as well.
			for i, only := range []string{"", "line", ""} {
				args := []string{"scan", "-v", "--crontab", crontab}
				if only != "" {
					args = append(args, "--task", only)
				}
				scan := newCatchup(t, db, "2026-11-20T13:30:00Z", args...)
				scan.cmd.Env = append(scan.cmd.Env, "W="+w)
				code := scan.run(t)
				if code == 0 {
					t.Errorf("scan %d on an unwritable ledger exited 0: %s", i+1, scan.stderr.String())
				}
				t.Logf("scan %d: exit %d\n%s%s", i+1, code, scan.stdout.String(), scan.stderr.String())
				if !strings.Contains(scan.stderr.String(), "ledger") {
					t.Errorf("scan %d does not say the ledger is the problem: %s", i+1, scan.stderr.String())
				}
				if got := append(readLines(t, filepath.Join(w, "argv.log")), readLines(t, filepath.Join(w, "line.log"))...); len(got) != 0 {
					t.Fatalf("scan %d ran slots it could not record: %v\nstderr: %s", i+1, got, scan.stderr.String())
				}
			}
			if unfill != nil {
				unfill()
			}
			free()
			scan := newCatchup(t, db, "2026-11-20T13:30:00Z", "scan", "-v", "--crontab", crontab)
			scan.cmd.Env = append(scan.cmd.Env, "W="+w)
			if code := scan.run(t); code != 0 {
				t.Fatalf("scan on a writable ledger again exited %d: %s", code, scan.stderr.String())
			}
			t.Logf("scan on a writable ledger:\n%s%s", scan.stdout.String(), scan.stderr.String())
			want := []string{"2026-11-20T11:00:00Z", "2026-11-20T12:00:00Z", "2026-11-20T13:00:00Z"}
			for _, log := range []string{"argv.log", "line.log"} {
				if got := readLines(t, filepath.Join(w, log)); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("%s after the disk was freed = %v, want each missed slot once %v", log, got, want)
				}
			}
			integrityOK(t, db)
		})
	}
}
