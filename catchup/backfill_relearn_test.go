package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBackfillRefusesAnEditedLine: a backfill of a crontab line whose
// schedule changed since the last scan would run the edited line for slots
// of the schedule it no longer has: it refuses the task, runs nothing, and
// says to scan first (a plain scan registers the change).
func TestBackfillRefusesAnEditedLine(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-12-02T02:40:00Z")
	f.m.Zone = "UTC"
	f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
	tab := filepath.Join(t.TempDir(), "crontab")
	bin := lineCatchupDir(t)
	write := func(sched string) {
		t.Helper()
		line := "PATH=" + bin + ":/usr/bin:/bin\nJOBDIR=" + f.job.dir + "\n" + sched + " catchup run --task job -- true\n"
		if err := os.WriteFile(tab, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("*/5 * * * *")
	ctx := context.Background()
	if _, err := Scan(ctx, f.st, f.m, ScanRequest{Crontabs: []CrontabSource{{Name: tab, Path: tab}}, MissedRule: MissedRule{Tolerance: 5 * time.Minute}}); err != nil {
		t.Fatal(err)
	}
	write("0 3 * * *")
	f.now = mustTime(t, "2026-12-02T03:30:00Z")
	_, err := Backfill(ctx, f.st, f.m, BackfillRequest{Tasks: []string{"job"}, From: mustTime(t, "2026-12-02T02:45:00Z"),
		To: mustTime(t, "2026-12-02T03:25:00Z"), Only: "all", Order: "oldest"})
	if err == nil || !strings.Contains(err.Error(), "catchup scan") {
		t.Errorf("backfill of an edited line: %v; want it refused, naming catchup scan", err)
	}
	if got := f.job.runs(t); len(got) != 0 {
		t.Errorf("the edited line ran for %v, want nothing run", got)
	}
}
