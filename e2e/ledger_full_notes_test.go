package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestScanFullDiskKeepsTheNotes: the ledger's disk fills. Task n's 03:00
// fire runs unrecorded and leaves a note (in the lock directory, in the
// space its reserve held: spool_reserve.go); task z's 02:00 and 03:00 never fired. A scan
// meanwhile cannot record the note: it keeps it, does not run n's 03:00
// again (nor says that the next scan will), and says what is true: the
// note stays for the next scan, and the ledger's disk is full, with where
// to free space; it runs nothing. Once it is freed, the next scan
// records the note and replays z's slots alone, each once.
func TestScanFullDiskKeepsTheNotes(t *testing.T) {
	_, db := tempLedger(t)
	unwritableLedgers["full disk"](t, db)
	w := t.TempDir()
	catchup := func(now string, args ...string) (*catchupProc, int) {
		p := newCatchup(t, db, now, args...)
		p.cmd.Env = append(p.cmd.Env, "W="+w)
		return p, p.run(t)
	}
	fire := func(task string) []string {
		return []string{"run", "--task", task, "--cron", "0 * * * *", "--tz", "UTC", "--",
			"sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> "$W/` + task + `.log"`}
	}
	for _, f := range []struct{ at, task string }{{"2026-03-10T01:00:05Z", "n"}, {"2026-03-10T01:00:05Z", "z"}, {"2026-03-10T02:00:05Z", "n"}} {
		if p, code := catchup(f.at, fire(f.task)...); code != 0 {
			t.Fatalf("fire of %s at %s exited %d: %s", f.task, f.at, code, p.stderr.String())
		}
	}
	// A run that holds the ledger open meanwhile, as a long job does: the
	// disk fills while the ledger is open, its WAL in use.
	holder := newCatchup(t, db, "2026-03-10T02:30:00Z", "run", "--task", "holder", "--",
		"sh", "-c", `touch "$W/held"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
	holder.cmd.Env = append(holder.cmd.Env, "W="+w)
	if err := holder.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { touch(t, filepath.Join(w, "release")); holder.cmd.Wait() })
	waitFile(t, filepath.Join(w, "held"))
	ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`) // the next write needs new blocks
	unfill := fill(t, filepath.Dir(db))

	if p, code := catchup("2026-03-10T03:00:05Z", fire("n")...); code != 0 || !strings.Contains(p.stderr.String(), "running n unrecorded") {
		t.Fatalf("fire on a full disk: exit %d: %s; want it run unrecorded", code, p.stderr.String())
	}
	scan, code := catchup("2026-03-10T03:10:00Z", "scan")
	stderr := scan.stderr.String()
	t.Logf("scan on a full disk: exit %d\n%s%s", code, scan.stdout.String(), stderr)
	if code != 2 {
		t.Errorf("scan on a full disk exited %d, want 2", code)
	}
	if strings.Contains(stderr, "of n") {
		t.Errorf("scan speaks of replaying a slot of n, whose 03:00 ran (noted): %s", stderr)
	}
	if !strings.Contains(stderr, "1 note of unrecorded fires stays on this host for the next scan to record") {
		t.Errorf("scan does not say that it kept the note: %s", stderr)
	}
	if want := "database or disk is full (13); free space on the filesystem holding " + filepath.Dir(db); !strings.Contains(stderr, want) {
		t.Errorf("scan does not say %q: %s", want, stderr)
	}
	wantN := []string{"2026-03-10T01:00:00Z schedule", "2026-03-10T02:00:00Z schedule", "2026-03-10T03:00:00Z schedule"}
	check := func(task string, want []string) {
		t.Helper()
		if got := readLines(t, filepath.Join(w, task+".log")); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s ran for %q, want %q", task, got, want)
		}
	}
	check("n", wantN)
	check("z", []string{"2026-03-10T01:00:00Z schedule"})

	unfill()
	scan, code = catchup("2026-03-10T03:20:00Z", "scan")
	if code != 0 || !strings.Contains(scan.stderr.String(), "recorded 1 fire ") {
		t.Fatalf("scan once space is freed: exit %d: %s%s", code, scan.stdout.String(), scan.stderr.String())
	}
	check("n", wantN)
	check("z", []string{"2026-03-10T01:00:00Z schedule", "2026-03-10T02:00:00Z replay", "2026-03-10T03:00:00Z replay"})
}
