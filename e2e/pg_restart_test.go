package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pgCluster stops and starts the machine's real PostgreSQL cluster. Only
// with CATCHUP_TEST_PG_RESTART=1 (.ci/run sets it for a run of its own, so
// that no other test loses its server).
func pgCluster(t *testing.T, action string) {
	t.Helper()
	versions, err := os.ReadDir("/etc/postgresql")
	if err != nil || len(versions) == 0 {
		t.Fatalf("no cluster in /etc/postgresql: %v", err)
	}
	out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", versions[0].Name(), "main", action, "-m", "fast").CombinedOutput()
	if err != nil && action == "stop" {
		t.Fatalf("pg_ctlcluster %s: %v %s", action, err, out)
	}
	if action == "start" {
		waitFor(t, fmt.Sprintf("PostgreSQL to accept connections again (pg_ctlcluster said %q)", out), func() bool {
			return exec.Command("pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432").Run() == nil
		})
	}
}

// TestPostgresRestart stops the real server: during a run (the outcome is
// recorded once it is back, the command is not killed), and at fire time
// (the command does not run, exit 75; the next scan replays the slot).
func TestPostgresRestart(t *testing.T) {
	if os.Getenv("CATCHUP_TEST_PG_RESTART") != "1" {
		t.Skip("CATCHUP_TEST_PG_RESTART=1 not set: this test stops and starts the PostgreSQL server")
	}
	db := pgLedger(t)
	t.Cleanup(func() { pgCluster(t, "start") })
	h := fleetHost(t, db, "host-a")
	log := filepath.Join(h.dir, "ran.log")
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> ` + log + `; touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done`

	// 1. The server stops while the job runs.
	p := h.catchup("2026-11-19T02:00:05Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", job)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(h.dir, "started"))
	pgCluster(t, "stop")
	touch(t, filepath.Join(h.dir, "release"))
	waitFor(t, "catchup to report that it retries recording the outcome", func() bool {
		return strings.Contains(p.stderr.String(), "recording the outcome of run")
	})
	pgCluster(t, "start")
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("run across the restart: %v: %s", err, p.stderr.String())
	}
	hist := newCatchup(t, db, "2026-11-19T03:00:00Z", "history", "-o", "json")
	hist.run(t)
	if !strings.Contains(hist.stdout.String(), `"status": "succeeded"`) {
		t.Fatalf("outcome not recorded after the restart: %s", hist.stdout.String())
	}

	// 2. The server is down when cron fires.
	pgCluster(t, "stop")
	fire := h.catchup("2026-11-20T02:00:05Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", job)
	if code := fire.run(t); code != 75 {
		t.Fatalf("fire with the server down exited %d, want 75: %s", code, fire.stderr.String())
	}
	pgCluster(t, "start")
	scan := h.catchup("2026-11-20T03:00:00Z", "scan", "-v")
	if code := scan.run(t); code != 0 || !strings.Contains(scan.stdout.String(), "settle: 1 missed, replayed 1") {
		t.Fatalf("scan after the restart: exit %d: %s %s", code, scan.stdout.String(), scan.stderr.String())
	}
	want := []string{"2026-11-19T02:00:00Z schedule", "2026-11-20T02:00:00Z replay"}
	if got := readLines(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("job ran %q, want %q", got, want)
	}
}
