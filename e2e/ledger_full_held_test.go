package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanFullDiskDuringAReplayKeepsItsOutcome: the ledger's disk fills
// while one of scan's replays runs (the job itself fills it), the
// task's held-outcome marker made by an earlier scan. The replay
// succeeded, but its outcome, held for the next replay's claim, cannot be
// recorded, nor can that claim: scan stops (exit 2) and says that the
// outcome is noted, and runs nothing more. Once space is freed, the next
// scan records the note and replays only the slot that never ran: the
// slot that ran is never taken for interrupted and run again.
func TestScanFullDiskDuringAReplayKeepsItsOutcome(t *testing.T) {
	_, db := tempLedger(t)
	unwritableLedgers["full disk"](t, db)
	w := t.TempDir()
	catchup := func(now string, args ...string) (*catchupProc, int) {
		p := newCatchup(t, db, now, args...)
		p.cmd.Dir = w // a working directory a replay may start in (X12)
		p.cmd.Env = append(p.cmd.Env, "W="+w, "FILLER="+filepath.Join(filepath.Dir(db), "filler"))
		return p, p.run(t)
	}
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> "$W/t.log"
if [ -e "$W/fill" ]; then
	rm "$W/fill"; dd if=/dev/zero of="$FILLER" bs=4k 2>/dev/null
fi
exit 0`
	if p, code := catchup("2026-11-20T09:00:05Z", "run", "--task", "t", "--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", job); code != 0 {
		t.Fatalf("registering fire exited %d: %s", code, p.stderr.String())
	}
	// An earlier scan's replay: the task's held-outcome marker exists
	// (it takes no new block when the disk is full).
	if p, code := catchup("2026-11-20T10:30:00Z", "scan"); code != 0 {
		t.Fatalf("first scan exited %d: %s", code, p.stderr.String())
	}
	touch(t, filepath.Join(w, "fill"))
	ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`) // the next writes need new blocks

	scan, code := catchup("2026-11-20T12:30:00Z", "scan")
	stderr := scan.stderr.String()
	t.Logf("scan while the disk fills: exit %d\n%s%s", code, scan.stdout.String(), stderr)
	if code != 2 {
		t.Errorf("scan whose replay filled the disk exited %d, want 2", code)
	}
	if !strings.Contains(stderr, "is noted on this host for its next scan to record") {
		t.Errorf("scan does not say that the outcome of the replay that ran is noted: %s", stderr)
	}
	want := []string{"2026-11-20T09:00:00Z schedule", "2026-11-20T10:00:00Z replay", "2026-11-20T11:00:00Z replay"}
	check := func(when string, want []string) {
		t.Helper()
		if got := readLines(t, filepath.Join(w, "t.log")); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: t ran for %q, want %q", when, got, want)
		}
	}
	check("after the scan that filled the disk", want)

	if scan, code = catchup("2026-11-20T12:31:00Z", "scan"); code != 2 {
		t.Errorf("scan on a full disk exited %d, want 2: %s", code, scan.stderr.String())
	}
	check("after a scan on the full disk", want)

	unfillAt(t, filepath.Dir(db))
	scan, code = catchup("2026-11-20T12:32:00Z", "scan", "-v")
	t.Logf("scan once space is freed: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 0 {
		t.Errorf("scan once space is freed exited %d: %s", code, scan.stderr.String())
	}
	check("after space is freed", append(want, "2026-11-20T12:00:00Z replay"))
	if got := ledgerRows(t, db, `SELECT status FROM runs WHERE task = 't' AND slot = 1795172400 ORDER BY id`); len(got) != 1 || got[0][0] != "succeeded" {
		t.Errorf("the runs of slot 11:00 = %v, want one, succeeded", got)
	}
	integrityOK(t, db)
}

// unfillAt frees the space a job's filler took in dir.
func unfillAt(t *testing.T, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
}
