package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateRefusesWhileRunning: migrate while a job runs on the host is
// refused (exit 2, naming the run and the way out) and copies nothing, so
// the shared ledger never holds a copy frozen as running; once the job has
// ended, migrate copies its outcome and the fleet does not replay the slot.
func TestMigrateRefusesWhileRunning(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	pg := pgLedger(t)
	dir, lite := tempLedger(t)
	const fire = "2026-11-20T02:00:10Z"
	p := newCatchup(t, lite, fire, "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", faultJob)
	p.cmd.Env = append(p.cmd.Env, "W="+dir)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { touch(t, filepath.Join(dir, "release")); p.cmd.Wait() })
	waitFile(t, filepath.Join(dir, "started"))

	busy := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg)
	if code := busy.run(t); code != 2 || !strings.Contains(busy.stderr.String(), "in progress") {
		t.Fatalf("migrate during a run: exit %d, %q; want 2 and a run in progress named", code, busy.stderr.String())
	}
	if h := newCatchup(t, pg, fire, "history", "-o", "json"); h.run(t) != 0 || strings.Contains(h.stdout.String(), "settle") {
		t.Fatalf("a refused migrate copied runs: %s %s", h.stdout.String(), h.stderr.String())
	}

	touch(t, filepath.Join(dir, "release"))
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the run: %v %s", err, p.stderr.String())
	}
	m := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg)
	if code := m.run(t); code != 0 || !strings.Contains(m.stdout.String(), "migrated 1 task and 1 run") {
		t.Fatalf("migrate after the run: exit %d, %s %s", code, m.stdout.String(), m.stderr.String())
	}
	scan := newCatchup(t, pg, "2026-11-20T03:00:00Z", "scan", "-v")
	scan.cmd.Env = append(scan.cmd.Env, "W="+dir)
	if code := scan.run(t); code != 0 || !strings.Contains(scan.stdout.String(), "settle: 0 missed") {
		t.Fatalf("the fleet's scan after migrate: %s %s", scan.stdout.String(), scan.stderr.String())
	}
	if got := readLines(t, filepath.Join(dir, "done.log")); len(got) != 1 {
		t.Errorf("the slot ran %d times, want once: %v", len(got), got)
	}
}
