package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestScanLeavesADaemonTask: a daemon line needs what only its daemon
// holds: the crontab's variables (PATH=, ...), which the ledger does not
// keep, and its command when the ledger keeps it redacted (it carried a
// secret). A scan that does not hold the line (any but its daemon's) must
// not run it: it leaves the slots, with a warning, for the daemon, whose
// scan passes the command it holds.
func TestScanLeavesADaemonTask(t *testing.T) {
	t.Parallel()
	for name, source := range map[string]string{
		"redacted": "daemon:/etc/c.cron:1" + RedactedMark,
		"as is":    "daemon:/etc/c.cron:1",
	} {
		t.Run(name, func(t *testing.T) { testScanLeavesADaemonTask(t, source) })
	}
}

func testScanLeavesADaemonTask(t *testing.T, source string) {
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	redactedRan := filepath.Join(f.job.dir, "redacted-ran")
	def := store.Task{Name: "d", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Dir: f.job.dir,
		Argv: []string{"sh", "-c", "touch " + redactedRan}, Source: source}
	if _, _, err := RegisterDaemonTask(t.Context(), f.st, f.m, def, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(3*time.Hour + 10*time.Minute)
	req := scanRequest()
	req.Tasks = []string{"d"}
	rep, err := Scan(t.Context(), f.st, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(redactedRan); err == nil {
		t.Fatal("a plain scan ran the redacted command")
	}
	ts := rep.Tasks[0]
	if len(ts.Missed) != 3 || ts.Left != 3 || !strings.Contains(strings.Join(ts.Warnings, "\n"), "wait for that daemon") {
		t.Errorf("missed %d, left %d, warnings %q; want 3 slots left for the daemon, with a warning", len(ts.Missed), ts.Left, ts.Warnings)
	}
	req.Commands = map[string][]string{"d": f.job.argv()}
	if _, err := Scan(t.Context(), f.st, f.m, req); err != nil {
		t.Fatal(err)
	}
	if got := f.job.runs(t); len(got) != 3 {
		t.Errorf("the daemon's scan ran %q; want its 3 missed slots, through the command it holds", got)
	}
	if _, err := os.Stat(redactedRan); err == nil {
		t.Error("the daemon's scan ran the redacted command")
	}
}
