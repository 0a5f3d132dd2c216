package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// zombieLimit is how long a zombie child of the namespace's PID 1 may stay
// before the test calls it unreaped: an init reaps at once, on SIGCHLD.
const zombieLimit = 5 * time.Second

// pid1Daemon is `catchup daemon` started as PID 1 of a new PID namespace
// (a container's entrypoint without tini or docker run --init), under the
// clock hook where a clock minute lasts a real second.
type pid1Daemon struct {
	*catchupProc
	init int // PID 1 of the namespace, as this test's namespace numbers it
}

// startAsPID1 starts the daemon on crontab as PID 1 of a PID namespace of
// its own. It needs root and unshare(1); it skips the test without them.
func startAsPID1(t *testing.T, db, crontab string) *pid1Daemon {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare(1) to run the daemon as PID 1 of a PID namespace")
	}
	if out, err := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare cannot make a PID namespace here (not permitted?): %v %s", err, out)
	}
	p := newCatchup(t, db, "", "daemon", "--crontab", crontab, "--rescan", "0", "--tolerance", "2m", "--grace", "10s")
	p.cmd.Env = append(p.cmd.Env, "CATCHUP_TEST_MINUTE=1s", "CATCHUP_TEST_EPOCH="+strconv.FormatInt(time.Now().Unix(), 10))
	p.cmd.Path = unshare
	p.cmd.Args = append([]string{unshare, "--pid", "--fork", "--mount-proc", os.Args[0]}, p.cmd.Args[1:]...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); p.cmd.Wait() })
	d := &pid1Daemon{catchupProc: p}
	waitFor(t, "unshare to start the namespace's PID 1", func() bool {
		kids := children(p.cmd.Process.Pid)
		if len(kids) == 1 {
			d.init = kids[0].pid
		}
		return d.init != 0
	})
	return d
}

// exitCode waits for unshare, which exits with the status of the
// namespace's PID 1.
func (d *pid1Daemon) exitCode(t *testing.T) int {
	t.Helper()
	d.cmd.Wait()
	if d.cmd.ProcessState == nil {
		t.Fatalf("unshare did not run: %s", d.stderr.String())
	}
	return d.cmd.ProcessState.ExitCode()
}

// proc is a process as /proc/PID/stat shows it.
type proc struct {
	pid, ppid int
	state     byte
	comm      string
	start     string // start time since boot: with the pid, it names one process
}

// children lists the processes whose parent is pid.
func children(pid int) []proc {
	var out []proc
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		if p, ok := readProc(filepath.Join(dir, "stat")); ok && p.ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

func readProc(path string) (proc, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime ...; comm may hold spaces and parentheses.
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j < i {
		return proc{}, false
	}
	f := strings.Fields(string(b[j+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:i])))
	ppid, _ := strconv.Atoi(f[1])
	return proc{pid: pid, ppid: ppid, state: f[0][0], comm: string(b[i+1 : j]), start: f[19]}, true
}

// TestDaemonAsPID1Reaps: `catchup daemon` as a container's PID 1 does
// init's work: the orphans its jobs leave (re-parented to PID 1) are reaped
// once they exit, none stays a zombie; a job's own exit status is still
// recorded (a failing job failed, with its code); SIGTERM to PID 1 stops
// the daemon as it does without a namespace (the running job forwarded the
// signal and recorded interrupted), and PID 1 exits with the daemon's 0.
func TestDaemonAsPID1Reaps(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	dir := t.TempDir()
	cron, long := filepath.Join(dir, "crontab"), filepath.Join(dir, "long.started")
	// The orphan leaves the job's process group (setsid), or the daemon
	// would kill it with the group when the job exits: it ends on its own.
	// The job waits until the orphan has left (setsid(1) in the background
	// may not have run when the job exits: the daemon then stops it with
	// the group, and no orphan is ever seen). $$ in the subshell is the
	// job's shell: one marker per fire.
	orphan := "(setsid sh -c 'touch \"$0\"; exec sleep 0.5' " + dir + "/left.$$ &) ; " +
		"i=0; while [ ! -e " + dir + "/left.$$ ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done"
	lines := "# catchup: task=orphans\n* * * * * " + orphan + "\n" +
		"# catchup: task=fails\n* * * * * exit 3\n" +
		"# catchup: task=long\n* * * * * touch " + long + "; sleep 60\n"
	if err := os.WriteFile(cron, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startAsPID1(t, db, cron)

	// Watch PID 1's children from outside: orphans (sleeps whose subshell
	// exited) are seen re-parented to it, then gone from /proc (a zombie
	// stays there until its parent reaps it), and none stays a zombie. The
	// job fires each second and the daemon may run owed fires back to back
	// on a loaded machine, so a new orphan may be alive at every look: the
	// test counts the orphans reaped, not a moment with none.
	zombies := map[string]time.Time{} // pid/start -> first seen a zombie
	orphans := map[string]bool{}      // pid/start of the sleeps seen under PID 1
	reaped := map[string]bool{}       // orphans seen, then gone
	waitFor(t, "3 orphans of the jobs re-parented to PID 1 and reaped", func() bool {
		now, present := time.Now(), map[string]bool{}
		for _, c := range children(d.init) {
			key := fmt.Sprintf("%d/%s", c.pid, c.start)
			present[key] = true
			if c.comm == "sleep" {
				orphans[key] = true
			}
			if c.state != 'Z' {
				continue
			}
			if _, ok := zombies[key]; !ok {
				zombies[key] = now
			}
			if now.Sub(zombies[key]) > zombieLimit {
				t.Fatalf("process %s (%s), a child of the daemon as PID 1, is still a zombie %v after it exited: "+
					"PID 1 does not reap the orphans its jobs leave\ndaemon's log:\n%s", key, c.comm, zombieLimit, d.stderr.String())
			}
		}
		for key := range orphans {
			if !present[key] {
				reaped[key] = true
			}
		}
		return len(reaped) >= 3
	})

	waitFor(t, "a run of the failing job recorded failed with its exit code 3", func() bool {
		return len(ledgerRows(t, db, `SELECT id FROM runs WHERE task = 'fails' AND status = 'failed' AND exit_code = 3`)) > 0
	})
	if rows := ledgerRows(t, db, `SELECT status, exit_code FROM runs WHERE task = 'fails' AND status <> 'running' AND NOT (status = 'failed' AND exit_code = 3)`); len(rows) > 0 {
		t.Errorf("runs of `exit 3` recorded otherwise than failed with code 3 (a reaper took their status?): %v", rows)
	}

	waitFile(t, long)
	if err := syscall.Kill(d.init, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := d.exitCode(t); code != 0 {
		t.Errorf("PID 1 exited %d after SIGTERM, want the daemon's 0; log:\n%s", code, d.stderr.String())
	}
	log := d.stderr.String()
	if !strings.Contains(log, "event=stop signal=terminated") || !strings.Contains(log, "event=exit") {
		t.Errorf("SIGTERM to PID 1 did not stop the daemon gracefully (event=stop, then event=exit):\n%s", log)
	}
	if rows := ledgerRows(t, db, `SELECT id FROM runs WHERE task = 'long' AND status = 'interrupted'`); len(rows) == 0 {
		t.Errorf("the long job running at SIGTERM was not recorded interrupted; runs: %v\nlog:\n%s",
			ledgerRows(t, db, `SELECT task, status, exit_code, signal FROM runs WHERE task = 'long'`), log)
	}
}

// TestDaemonAsPID1ExitsWithItsStatus: PID 1 exits with the status of the
// daemon it runs: 2 for a crontab the daemon refuses at start, 128+9 when
// the daemon is killed by SIGKILL (as a shell reports it).
func TestDaemonAsPID1ExitsWithItsStatus(t *testing.T) {
	for name, tc := range map[string]struct {
		crontab string
		kill    bool
		want    int
	}{
		"refused crontab": {crontab: "# no job line\n", want: 2},
		"daemon killed":   {crontab: "# catchup: task=job\n* * * * * true\n", kill: true, want: 128 + 9},
	} {
		t.Run(name, func(t *testing.T) {
			_, db := tempLedger(t)
			cron := filepath.Join(t.TempDir(), "crontab")
			if err := os.WriteFile(cron, []byte(tc.crontab), 0o600); err != nil {
				t.Fatal(err)
			}
			d := startAsPID1(t, db, cron)
			if tc.kill {
				waitFor(t, "the daemon to start (event=start)", func() bool { return strings.Contains(d.stderr.String(), "event=start") })
				var daemon int
				for _, c := range children(d.init) {
					if c.state != 'Z' && c.comm == filepath.Base(os.Args[0])[:min(15, len(filepath.Base(os.Args[0])))] {
						daemon = c.pid
					}
				}
				if daemon == 0 {
					t.Fatalf("PID 1 (%d) has no daemon child to kill: children %v", d.init, children(d.init))
				}
				syscall.Kill(daemon, syscall.SIGKILL)
			}
			if code := d.exitCode(t); code != tc.want {
				t.Errorf("PID 1 exited %d, want %d; log:\n%s", code, tc.want, d.stderr.String())
			}
		})
	}
}
