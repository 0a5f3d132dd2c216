package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOwnLineFirstOfOneTask: of two lines naming one task, root's own is
// registered and another user's (nobody's, which a root scan on a SQLite
// ledger refuses anyway) is the one warned about, whatever the order of
// the files given to scan: nobody's crontab given first kept root's line
// from ever registering, its job never replayed.
func TestOwnLineFirstOfOneTask(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives a crontab to nobody")
	}
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	dir := t.TempDir()
	theirs, mine := filepath.Join(dir, "nobody.crontab"), filepath.Join(dir, "root.crontab")
	for path, cmd := range map[string]string{theirs: "touch /nonexistent/taken", mine: "true"} {
		if err := os.WriteFile(path, []byte("0 * * * * catchup run --task settle -- "+cmd+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), f.st, f.m, ScanRequest{MaxReplays: 100, MissedRule: MissedRule{Tolerance: 5 * time.Minute},
		Crontabs: []CrontabSource{{Name: theirs, Path: theirs}, {Name: mine, Path: mine}}})
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.st.Task(t.Context(), "settle")
	if err != nil || lineSource(task.Source) != mine {
		t.Errorf("task settle: %+v, %v; want root's line registered (warnings %q)", task, err, rep.Warnings)
	}
}

// TestDiscoverManyLines: a crontab of 60,000 lines, two of one task, is
// read whole, the second line of that task still found. What it costs, in
// proportion to the lines, is measured by BenchmarkDiscoverManyLines, not
// timed here. Each line was compared with every line before it (two lines
// of one task): a user's crontab of 50,000 lines (2 MB; the cap is 16 MiB)
// took a root scan 33 s, 100,000 lines 3 minutes, a full one the better
// part of an hour, at every scan (the boot's, which cron waits for,
// included).
func TestDiscoverManyLines(t *testing.T) {
	t.Parallel()
	entries, warnings, err := newCrontabs(Machine{}).discover([]CrontabSource{{Name: "big", R: strings.NewReader(manyLines())}})
	if err != nil || len(entries) != 60000 || len(warnings) != 1 || !strings.Contains(warnings[0], "big:60001: task t7 is also the line at big:8") {
		t.Fatalf("discover: %d entries, warnings %q, %v; want 60000 and one warning of task t7", len(entries), warnings, err)
	}
}

// BenchmarkDiscoverManyLines is TestDiscoverManyLines's read.
func BenchmarkDiscoverManyLines(b *testing.B) {
	lines := manyLines()
	for b.Loop() {
		if _, _, err := newCrontabs(Machine{}).discover([]CrontabSource{{Name: "big", R: strings.NewReader(lines)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// manyLines is a crontab of 60,000 lines of tasks t0..t59999, then a
// second line of task t7.
func manyLines() string {
	var b strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&b, "0 * * * * catchup run --task t%d -- true\n", i)
	}
	b.WriteString("0 * * * * catchup run --task t7 -- false\n") // a second line of one task, still found
	return b.String()
}

// TestZonePathLinesCheap: 4,000 lines naming two zone files, one a regular
// file of 1 MiB - 1, one that starts as a zone file, are each refused (no
// such zone) and the scan goes on. What it costs, one read of each file
// and not one (or a walk of the zoneinfo tree) per line, is measured by
// BenchmarkZonePathLines, not timed here: a test's clock on a busy machine
// under -race read 5.5 s. (A user's crontab of 20,000 such lines, 1.2 MB,
// took a root scan 94 s, and 55 s naming a file that starts as a zone
// file, at every scan.)
func TestZonePathLinesCheap(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	rep, err := Scan(context.Background(), f.st, f.m, zonePathLinesScan(t))
	if err != nil || rep.RefusedLines != 4000 {
		t.Fatalf("scan: %d lines refused, %v; want the 4000 (no such zone)", rep.RefusedLines, err)
	}
}

// BenchmarkZonePathLines is TestZonePathLinesCheap's scan: half a second
// here, where a read per line took 55-94 s for 20,000 lines.
func BenchmarkZonePathLines(b *testing.B) {
	f := newRunFixture(b, "2026-03-01T09:30:00Z")
	for b.Loop() {
		if _, err := Scan(context.Background(), f.st, f.m, zonePathLinesScan(b)); err != nil {
			b.Fatal(err)
		}
	}
}

// zonePathLinesScan is a scan of a crontab of 4,000 lines, half naming a
// regular file of 1 MiB - 1 as their --tz, half a file that starts as a
// zone file.
func zonePathLinesScan(t testing.TB) ScanRequest {
	dir := t.TempDir()
	big, tzif := filepath.Join(dir, "big"), filepath.Join(dir, "tzif")
	if err := os.WriteFile(big, make([]byte, 1<<20-1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tzif, append([]byte("TZif"), make([]byte, 4000)...), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "0 * * * * catchup run --tz %s --task b%d -- true\n", big, i)
		fmt.Fprintf(&b, "0 * * * * catchup run --tz %s --task t%d -- true\n", tzif, i)
	}
	return ScanRequest{MaxReplays: 100, MissedRule: MissedRule{Tolerance: 5 * time.Minute},
		Crontabs: []CrontabSource{{Name: "zones", R: strings.NewReader(b.String())}}}
}
