package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFullDiskAndFullNoteDirKeepTheOutcome: the ledger's disk fills while
// a fire's job runs (the job fills it), and the spare note directory (a
// tmpfs apart) is full too. The job succeeded; its outcome cannot reach
// the ledger, nor a note in either place but for the space the lock
// directory keeps in reserve for that note. Once space is freed, the next
// scan records the outcome and does not run the slot again; it makes the
// reserve anew, so that a second fill is survived too. Before, the fire
// said that the next scan would run its slot again, and it did.
func TestFullDiskAndFullNoteDirKeepTheOutcome(t *testing.T) {
	_, db := tempLedger(t)
	unwritableLedgers["full disk"](t, db)
	notes := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", notes).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", notes).Run() })
	fill(t, notes)
	w := t.TempDir()
	catchup := func(now string, args ...string) (*catchupProc, int) {
		p := newCatchup(t, db, now, args...)
		p.cmd.Env = append(p.cmd.Env, "W="+w, "FILLER="+filepath.Join(filepath.Dir(db), "filler"),
			"CATCHUP_NOTE_DIR="+filepath.Join(notes, "notes"))
		return p, p.run(t)
	}
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> "$W/t.log"
if [ -e "$W/fill" ]; then
	rm "$W/fill"; dd if=/dev/zero of="$FILLER" bs=4k 2>/dev/null
fi
exit 0`
	fire := func(at string) {
		t.Helper()
		p, code := catchup(at, "run", "--task", "t", "--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", job)
		if code != 0 || strings.Contains(p.stderr.String(), "cannot keep a note") {
			t.Fatalf("fire at %s: exit %d: %s", at, code, p.stderr.String())
		}
		t.Logf("fire at %s: %s", at, p.stderr.String())
	}
	scan := func(at string) {
		t.Helper()
		p, code := catchup(at, "scan")
		if code != 0 {
			t.Fatalf("scan at %s once space is freed: exit %d: %s%s", at, code, p.stdout.String(), p.stderr.String())
		}
	}
	want := []string{"2026-11-20T09:00:00Z schedule"}
	check := func(when string) {
		t.Helper()
		if got := readLines(t, filepath.Join(w, "t.log")); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: t ran for %q, want %q", when, got, want)
		}
	}
	fire("2026-11-20T09:00:05Z")
	for i, hour := range []string{"10", "11"} {
		touch(t, filepath.Join(w, "fill"))
		ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`) // the outcome's write needs new blocks
		fire("2026-11-20T" + hour + ":00:05Z")
		want = append(want, "2026-11-20T"+hour+":00:00Z schedule")
		unfillAt(t, filepath.Dir(db))
		scan("2026-11-20T" + hour + ":30:00Z")
		check("after fill " + []string{"one", "two"}[i] + " and a scan")
	}
	got := ledgerRows(t, db, `SELECT slot, status FROM runs WHERE task = 't' ORDER BY id`)
	if len(got) != 3 {
		t.Errorf("runs of t = %v, want one each of 09:00, 10:00, 11:00, succeeded", got)
	}
	for _, r := range got {
		if r[1] != "succeeded" {
			t.Errorf("run of slot %s is %s, want succeeded", r[0], r[1])
		}
	}
	if _, err := os.Stat(filepath.Join(notes, "notes")); err == nil {
		t.Logf("the spare note directory was made (it was full)")
	}
	integrityOK(t, db)
}
