package e2e

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnrecordedRunAlerts: a run whose claim the ledger cannot write (a
// full disk) runs unrecorded and reports as a recorded run does: its
// --retries, the start ping, the end ping with the last attempt's exit
// code, and --notify-cmd (CATCHUP_RUN_ID 0: the run is not in the ledger).
func TestUnrecordedRunAlerts(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	var log pingLog
	srv := httptest.NewServer(log.handler(0, 200))
	defer srv.Close()
	_, db := tempLedger(t)
	unwritableLedgers["full disk"](t, db)
	if code := newCatchup(t, db, "", "run", "--task", "ff", "--", "true").run(t); code != 0 {
		t.Fatalf("the healthy run exited %d", code)
	}
	defer fill(t, filepath.Dir(db))()

	p := newCatchup(t, db, "", "run", "--task", "ff", "--ping", srv.URL+"/ff/secret", "--retries", "1", "--retry-delay", "10ms",
		"--notify-cmd", `echo "PAGED $CATCHUP_STATUS $CATCHUP_EXIT_CODE run=$CATCHUP_RUN_ID attempt=$CATCHUP_ATTEMPT" >&2`,
		"--", "sh", "-c", "echo attempt $CATCHUP_ATTEMPT >&2; exit 6")
	if code := p.run(t); code != 6 {
		t.Fatalf("exit %d, want the job's 6: %s", code, p.stderr.String())
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "unrecorded") || !strings.Contains(stderr, "full") {
		t.Errorf("stderr %q: want the line saying the run is unrecorded, the disk full", stderr)
	}
	if n := strings.Count(stderr, "attempt "); n != 3 { // attempt 1, the retry notice, attempt 2
		t.Errorf("stderr %q: want 2 attempts and 1 retry notice", stderr)
	}
	if !strings.Contains(stderr, "PAGED failed 6 run=0 attempt=2") {
		t.Errorf("stderr %q: want --notify-cmd for the failed last attempt, unrecorded", stderr)
	}
	var paths []string
	for _, h := range log.list() {
		paths = append(paths, strings.Fields(h)[1])
	}
	if got := strings.Join(paths, " "); got != "/ff/secret/start /ff/secret/6" {
		t.Errorf("pings %q, want the start ping then the end ping with exit 6", got)
	}
}
