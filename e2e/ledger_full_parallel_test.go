package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParallelScanAndBackfillOnAFullDisk: the ledger's disk fills while a
// --concurrency 4 scan replays four tasks at once (task a's job fills it,
// the others' jobs may be running): the scan stops, exit 2, saying the
// ledger's problem, and no slot runs twice; a backfill on the full disk
// runs nothing and says why in one line; once space is freed, a scan runs
// every slot still missed, each slot having run exactly once in all.
func TestParallelScanAndBackfillOnAFullDisk(t *testing.T) {
	_, db := tempLedger(t)
	unwritableLedgers["full disk"](t, db)
	w := t.TempDir()
	catchup := func(now string, args ...string) (*catchupProc, int) {
		p := newCatchup(t, db, now, args...)
		p.cmd.Dir = w
		p.cmd.Env = append(p.cmd.Env, "W="+w, "FILLER="+filepath.Join(filepath.Dir(db), "filler"))
		return p, p.run(t)
	}
	// a's job fills the disk; the others' jobs, running beside it, wait
	// until it has (a minute at most), so that their outcomes meet it.
	job := `echo "$CATCHUP_TASK $CATCHUP_SLOT" >> "$W/log"
if [ "$CATCHUP_TASK" = a ] && [ -e "$W/fill" ]; then
	dd if=/dev/zero of="$FILLER" bs=4k 2>/dev/null; rm "$W/fill"
fi
i=0
while [ -e "$W/fill" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
exit 0`
	tasks := []string{"a", "b", "c", "d"}
	for _, task := range tasks {
		if p, code := catchup("2026-11-20T09:00:05Z", "run", "--task", task, "--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", job); code != 0 {
			t.Fatalf("registering fire of %s exited %d: %s", task, code, p.stderr.String())
		}
	}
	// An earlier scan's replays: each task's held-outcome marker exists.
	if p, code := catchup("2026-11-20T10:30:00Z", "scan", "--concurrency", "4"); code != 0 {
		t.Fatalf("first scan exited %d: %s", code, p.stderr.String())
	}
	touch(t, filepath.Join(w, "fill"))
	ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)

	scan, code := catchup("2026-11-20T13:30:00Z", "scan", "--concurrency", "4")
	t.Logf("scan while the disk fills: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 2 {
		t.Errorf("scan whose replay filled the disk exited %d, want 2", code)
	}
	if !strings.Contains(scan.stderr.String(), "ledger") {
		t.Errorf("scan does not say the ledger is the problem: %s", scan.stderr.String())
	}
	once := func(when string) map[string]int {
		t.Helper()
		ran := map[string]int{}
		for _, l := range readLines(t, filepath.Join(w, "log")) {
			if ran[l]++; ran[l] > 1 {
				t.Errorf("%s: %s ran %d times", when, l, ran[l])
			}
		}
		return ran
	}
	before := once("after the scan that filled the disk")

	bf, code := catchup("2026-11-20T13:31:00Z", "backfill", "--task", "b", "--from", "2026-11-20T11:00:00Z", "--to", "2026-11-20T13:00:00Z")
	t.Logf("backfill on the full disk: exit %d\n%s%s", code, bf.stdout.String(), bf.stderr.String())
	if code == 0 || code == 1 {
		t.Errorf("backfill on a full disk exited %d, want an error", code)
	}
	if lines := strings.Split(strings.TrimSpace(bf.stderr.String()), "\n"); !strings.Contains(bf.stderr.String(), "ledger") || len(lines) > 2 {
		t.Errorf("backfill on a full disk does not say so in a line naming the ledger: %q", bf.stderr.String())
	}
	if after := once("after a backfill on the full disk"); len(after) != len(before) {
		t.Errorf("a backfill on the full disk ran %d slots", len(after)-len(before))
	}

	unfillAt(t, filepath.Dir(db))
	scan, code = catchup("2026-11-20T13:32:00Z", "scan", "--concurrency", "4")
	t.Logf("scan once space is freed: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 0 {
		t.Errorf("scan once space is freed exited %d: %s", code, scan.stderr.String())
	}
	var got, want []string
	for l := range once("after space is freed") {
		got = append(got, l)
	}
	for _, task := range tasks {
		for h := 9; h <= 13; h++ {
			want = append(want, fmt.Sprintf("%s 2026-11-20T%02d:00:00Z", task, h))
		}
	}
	slices.Sort(got)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("slots run = %q, want each of %q once", got, want)
	}
	if p, code := catchup("2026-11-20T13:33:00Z", "ls", "--missed"); code != 0 {
		t.Errorf("ls --missed after the last scan exited %d: %s", code, p.stdout.String())
	}
	integrityOK(t, db)
}
