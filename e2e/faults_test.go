package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The job used by the fault tests: it writes its pid, marks that it
// started, waits until the test touches $W/release, and only then appends
// its slot to done.log. done.log is what the outside world saw finish. A
// job not released within a minute (a test that failed half-way) gives up
// without finishing.
const faultJob = `echo $$ > "$W/job.pid"; touch "$W/started"; ` +
	`i=0; while [ ! -e "$W/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; ` +
	`[ -e "$W/release" ] && echo "$CATCHUP_SLOT" >> "$W/done.log"`

func TestFaultKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes; skipped with -short")
	}
	const slot, fire, later = "2026-11-20T02:00:00Z", "2026-11-20T02:00:10Z", "2026-11-20T03:00:00Z"
	tests := map[string]struct {
		killCatchup, killJob bool
		wantStatus           string // the first run's record after the fault and a scan
		wantDone             int    // times the job finished for the slot, in the end
	}{
		// catchup dies, the job runs on to the end holding the task lock.
		// catchup cannot learn its outcome, so scan replays the slot: the one
		// at-least-once case, documented in docs/guarantees.md.
		"catchup SIGKILLed": {killCatchup: true, wantStatus: "interrupted", wantDone: 2},
		// catchup sees the job die of SIGKILL and records it failed (137).
		"job SIGKILLed": {killJob: true, wantStatus: "failed", wantDone: 0},
		// Both gone mid-run (a power cut, an OOM sweep of the cgroup): the slot
		// did not finish, scan replays it once.
		"both SIGKILLed": {killCatchup: true, killJob: true, wantStatus: "interrupted", wantDone: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir, db := tempLedger(t)
			p := newCatchup(t, db, fire, "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", faultJob)
			p.cmd.Env = append(p.cmd.Env, "W="+dir)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFile(t, filepath.Join(dir, "started"))
			jobPID := readPID(t, filepath.Join(dir, "job.pid"))
			switch {
			case tc.killCatchup && tc.killJob:
				powerCut(t, p.cmd.Process.Pid, jobPID)
			case tc.killCatchup:
				syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
			case tc.killJob:
				syscall.Kill(-jobPID, syscall.SIGKILL)
			}
			p.cmd.Wait()
			if tc.killCatchup && !tc.killJob {
				// The orphaned job still holds the task lock: no second run beside
				// it, not even one by hand.
				if code := newCatchup(t, db, fire, "run", "--task", "settle", "--manual", "--", "true").run(t); code != 75 {
					t.Fatalf("a run beside the orphaned job exited %d, want 75", code)
				}
			}
			touch(t, filepath.Join(dir, "release")) // an orphan finishes; replays run through
			waitGone(t, jobPID)
			integrityOK(t, db)

			scan := newCatchup(t, db, later, "scan", "-v")
			scan.cmd.Env = append(scan.cmd.Env, "W="+dir)
			if code := scan.run(t); code != 0 {
				t.Fatalf("scan exited %d: %s%s", code, scan.stdout.String(), scan.stderr.String())
			}
			integrityOK(t, db)
			first := ledgerRows(t, db, `SELECT status FROM runs WHERE task = 'settle' AND slot = ? ORDER BY id LIMIT 1`, mustUnix(t, slot))
			if len(first) != 1 || first[0][0] != tc.wantStatus {
				t.Errorf("first run of the slot = %v, want %s", first, tc.wantStatus)
			}
			if got := len(readLines(t, filepath.Join(dir, "done.log"))); got != tc.wantDone {
				t.Errorf("job finished %d times for the slot, want %d", got, tc.wantDone)
			}
			// Whatever happened, the slot has exactly one outcome now and
			// nothing is left to replay.
			ok := ledgerRows(t, db, `SELECT count(*) FROM runs WHERE task='settle' AND slot=? AND status IN ('succeeded','failed')`, mustUnix(t, slot))
			if ok[0][0] != "1" {
				t.Errorf("outcomes for the slot: %s, want 1", ok[0][0])
			}
			again := newCatchup(t, db, later, "scan", "-v")
			again.run(t)
			if !strings.Contains(again.stdout.String(), "replayed 0") {
				t.Errorf("second scan did something: %s", again.stdout.String())
			}
		})
	}
}

// TestFaultPowerCut cuts the power under a run (catchup and its job frozen,
// then killed) six times over, then checks that the ledger is intact and
// that scan brings every slot to exactly one success. Each fire after the
// first replays the oldest dead slot first (run_dead_holder_lock_free_first),
// and the cut hits that replay's job: it leaves the replay and the fire's
// own claim interrupted, two records.
func TestFaultPowerCut(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes; skipped with -short")
	}
	dir, db := tempLedger(t)
	const cuts = 6
	var slots []string
	for i := 0; i < cuts; i++ {
		slot := fmt.Sprintf("2026-11-20T%02d:00:00Z", i)
		slots = append(slots, slot)
		os.Remove(filepath.Join(dir, "started"))
		p := newCatchup(t, db, fmt.Sprintf("2026-11-20T%02d:00:05Z", i), "run", "--task", "hourly", "--cron", "0 * * * *",
			"--tz", "UTC", "--", "sh", "-c", faultJob)
		p.cmd.Env = append(p.cmd.Env, "W="+dir)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFile(t, filepath.Join(dir, "started"))
		job := readPID(t, filepath.Join(dir, "job.pid"))
		powerCut(t, p.cmd.Process.Pid, job)
		p.cmd.Wait()
		waitGone(t, job)
		integrityOK(t, db)
	}
	touch(t, filepath.Join(dir, "release")) // the replays run through
	scan := newCatchup(t, db, "2026-11-20T08:00:00Z", "scan", "-v")
	scan.cmd.Env = append(scan.cmd.Env, "W="+dir)
	if code := scan.run(t); code != 0 {
		t.Fatalf("scan exited %d: %s", code, scan.stderr.String())
	}
	integrityOK(t, db)
	done := readLines(t, filepath.Join(dir, "done.log"))
	count := map[string]int{}
	for _, s := range done {
		count[s]++
	}
	// Slots 00..05 were cut; 06 and 07 were never fired at all (the host was down).
	want := append(slots, "2026-11-20T06:00:00Z", "2026-11-20T07:00:00Z")
	for _, s := range want {
		if count[s] != 1 {
			t.Errorf("slot %s finished %d times, want exactly 1", s, count[s])
		}
	}
	if len(done) != len(want) {
		t.Errorf("done.log has %d lines, want %d: %v", len(done), len(want), done)
	}
	interrupted := ledgerRows(t, db, `SELECT count(*) FROM runs WHERE status = 'interrupted'`)
	if want := 1 + 2*(cuts-1); interrupted[0][0] != strconv.Itoa(want) {
		t.Errorf("interrupted runs = %s, want %d", interrupted[0][0], want)
	}
	replays := ledgerRows(t, db, `SELECT count(*) FROM runs WHERE status = 'interrupted' AND trigger = 'replay' AND slot = ?`,
		mustUnix(t, slots[0]))
	if replays[0][0] != strconv.Itoa(cuts-1) {
		t.Errorf("interrupted replays of the oldest slot = %s, want %d (each later fire replays it first)", replays[0][0], cuts-1)
	}
}

// TestSignalsToCatchup: SIGTERM, SIGHUP and SIGQUIT sent to catchup reach
// the command's group; the run is recorded interrupted (scan replays it)
// and catchup exits with the command's status.
func TestSignalsToCatchup(t *testing.T) {
	for name, sig := range map[string]syscall.Signal{"TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT} {
		t.Run(name, func(t *testing.T) {
			dir, db := tempLedger(t)
			p := newCatchup(t, db, "", "run", "--task", "sig", "--", "sh", "-c",
				`trap 'exit 7' `+name+`; touch "$W/started"; while :; do sleep 0.05; done`)
			p.cmd.Env = append(p.cmd.Env, "W="+dir)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFile(t, filepath.Join(dir, "started"))
			syscall.Kill(p.cmd.Process.Pid, sig)
			p.cmd.Wait()
			if code := p.cmd.ProcessState.ExitCode(); code != 7 {
				t.Errorf("exit %d, want the command's 7: %s", code, p.stderr.String())
			}
			if st := ledgerRows(t, db, `SELECT status, exit_code FROM runs`); len(st) != 1 || st[0][0] != "interrupted" || st[0][1] != "7" {
				t.Errorf("recorded %v, want interrupted with exit 7", st)
			}
		})
	}
}
