package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFleetOrphanedJob: on a shared ledger the job does not outlive its
// catchup. catchup alone is SIGKILLed on host-a while its job runs: the job
// is killed with it (PR_SET_PDEATHSIG), so when host-b replays the slot
// after the lease, nothing of host-a's run is still running. The slot
// finishes exactly once, and never on two hosts at once.
func TestFleetOrphanedJob(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	done := filepath.Join(t.TempDir(), "done.log")
	// Each run notes that it runs, and finishes (appending to done.log) only
	// once released; the replay is released from the start.
	// The waiting is done by a child of the command's shell, as in
	// `sh -c 'backup; echo done'`: the whole group must die, not only the
	// process catchup started.
	job := `echo $$ > "$W/job.pid"; sh -c 'echo $$ > "$W/inner.pid"; touch "$W/started"; ` +
		`i=0; while [ ! -e "$W/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; ` +
		`[ -e "$W/release" ] && echo "$CATCHUP_SLOT" >> ` + done + `'`
	p := a.catchup("2026-11-20T02:00:05Z", "--lease", "2s", "run", "--task", "settle", "--cron", "0 2 * * *",
		"--tz", "UTC", "--", "sh", "-c", job)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(a.dir, "started"))
	jobPID, innerPID := readPID(t, filepath.Join(a.dir, "job.pid")), readPID(t, filepath.Join(a.dir, "inner.pid"))
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL) // catchup alone
	p.cmd.Wait()
	waitGone(t, jobPID)   // the orphan does not outlive catchup,
	waitGone(t, innerPID) // nor does what it started

	touch(t, filepath.Join(b.dir, "release"))
	late := b.catchup("2026-11-20T03:00:00Z", "--lease", "2s", "scan", "-v")
	if code := late.run(t); code != 0 || !strings.Contains(late.stdout.String(), "settle: 1 missed, replayed 1") {
		t.Fatalf("host-b's scan after the lease: exit %d: %s %s", code, late.stdout.String(), late.stderr.String())
	}
	touch(t, filepath.Join(a.dir, "release")) // too late for host-a's job: it is gone
	if got := readLines(t, done); len(got) != 1 || got[0] != "2026-11-20T02:00:00Z" {
		t.Errorf("the slot finished %v, want exactly once", got)
	}
}
