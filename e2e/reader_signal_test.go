package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestReaderStopsOnSignal: a command that only reads the ledger ends at
// once on Ctrl-C (SIGINT) or SIGTERM, exiting 128+N, whatever it is doing.
// catchup catches the stop signals for every command (a run must record
// its job's end), and the readers' work never looked at them: `catchup ls`
// counting years of a task's minutes went on to the end and exited 0,
// and with the clock glitched to the year 9999 it ran for hours, deaf to
// both, until the kernel's OOM killer ended it.
func TestReaderStopsOnSignal(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	cases := map[string]struct {
		args []string
		sig  syscall.Signal
	}{
		"ls, SIGINT":             {args: []string{"ls"}, sig: syscall.SIGINT},
		"ls --missed, SIGTERM":   {args: []string{"ls", "--missed", "-o", "json"}, sig: syscall.SIGTERM},
		"scan --dry-run, SIGINT": {args: []string{"scan", "--dry-run"}, sig: syscall.SIGINT},
		"metrics, SIGTERM":       {args: []string{"metrics"}, sig: syscall.SIGTERM},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, db := tempLedger(t)
			fire := newCatchup(t, db, "2026-01-01T00:00:02Z", "run", "--task", "t", "--cron", "* * * * *", "--tz", "UTC", "--", "true")
			if code := fire.run(t); code != 0 {
				t.Fatalf("fire: exit %d: %s", code, fire.stderr.String())
			}
			// Two years of minutes, all missed: a second or more of work, most of it after the first 40 MiB.
			p := newCatchup(t, db, "2028-01-01T00:00:00Z", c.args...)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := p.cmd.Process.Pid
			waitFor(t, "the reader to catch its stop signals and be at work", func() bool {
				caught, rss := sigStatus(pid)
				return caught&(1<<(uint(c.sig)-1)) != 0 && rss > 40<<10
			})
			if err := syscall.Kill(pid, c.sig); err != nil {
				t.Fatal(err)
			}
			err := p.cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(c.sig) {
				t.Fatalf("after %v: %v, want exit %d; stderr: %s", c.sig, err, 128+int(c.sig), p.stderr.String())
			}
		})
	}
}

// sigStatus reads process pid's caught signals (a mask, bit N-1 for
// signal N) and its resident size in KiB from /proc.
func sigStatus(pid int) (caught uint64, rssKiB int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		v = strings.TrimSpace(v)
		switch k {
		case "SigCgt":
			caught, _ = strconv.ParseUint(v, 16, 64)
		case "VmRSS":
			rssKiB, _ = strconv.Atoi(strings.TrimSuffix(v, " kB"))
		}
	}
	return caught, rssKiB
}
