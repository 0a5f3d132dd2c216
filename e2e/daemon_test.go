package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// daemonHost runs `catchup daemon` on a crontab with one job that takes
// 0.7s, under the clock hook where a clock minute lasts a real second (all
// processes of the test read one clock: the same CATCHUP_TEST_EPOCH).
type daemonHost struct {
	t             *testing.T
	db, out, cron string
	epoch         string
	rescan        string   // --rescan, 1s unless a test sets it (a flag is given once)
	extra         []string // more flags of the daemon
}

func newDaemonHost(t *testing.T, db string) *daemonHost {
	dir := t.TempDir()
	h := &daemonHost{t: t, db: db, out: filepath.Join(dir, "out"), cron: filepath.Join(dir, "crontab"),
		epoch: strconv.FormatInt(time.Now().Unix(), 10), rescan: "1s"}
	line := fmt.Sprintf("# catchup: task=job\n* * * * * sleep 0.5; echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s\n", h.out)
	if err := os.WriteFile(h.cron, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *daemonHost) start(name string, env ...string) *catchupProc {
	p := newCatchup(h.t, h.db, "", append([]string{"daemon", "--crontab", h.cron, "--rescan", h.rescan,
		"--tolerance", "2m", "--grace", "5s", "--host", name}, h.extra...)...)
	p.cmd.Env = append(p.cmd.Env, "CATCHUP_TEST_MINUTE=1s", "CATCHUP_TEST_EPOCH="+h.epoch)
	p.cmd.Env = append(p.cmd.Env, env...)
	if err := p.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); p.cmd.Wait() })
	return p
}

var firePid = regexp.MustCompile(`event=fire task=job slot=(\S+) pid=(\d+)`)

// midJob waits until the daemon's latest fire is running (started, its
// line not yet written) and returns its pid.
func (h *daemonHost) midJob(p *catchupProc) int {
	var pid int
	waitFor(h.t, "a job of the daemon in the middle of its run", func() bool {
		m := firePid.FindAllStringSubmatch(p.stderr.String(), -1)
		if len(m) == 0 {
			return false
		}
		last := m[len(m)-1]
		for _, l := range readLines(h.t, h.out) {
			if len(l) >= len(last[1]) && l[:len(last[1])] == last[1] {
				return false
			}
		}
		pid, _ = strconv.Atoi(last[2])
		return true
	})
	return pid
}

// written reads the slots the jobs wrote: how many times each, the first
// and the last. A line that does not start with a slot is skipped (one still
// being written), or fails the test when strict.
func (h *daemonHost) written(strict bool) (count map[time.Time]int, first, last time.Time) {
	count = map[time.Time]int{}
	for _, l := range readLines(h.t, h.out) {
		s, err := time.Parse(time.RFC3339, l[:min(len(l), len("2006-01-02T15:04:05Z"))])
		if err != nil {
			if strict {
				h.t.Fatalf("bad line %q", l)
			}
			continue
		}
		count[s]++
		if first.IsZero() || s.Before(first) {
			first = s
		}
		if s.After(last) {
			last = s
		}
	}
	return count, first, last
}

// slotsInARow is how many slots from the first written to the last all
// ran (0 while one of them has not).
func (h *daemonHost) slotsInARow() int {
	count, first, last := h.written(false)
	n := 0
	for s := first; !first.IsZero() && !s.After(last); s = s.Add(time.Minute) {
		if count[s] == 0 {
			return 0
		}
		n++
	}
	return n
}

// gaps returns up to n slots, between the first and the last written, that
// no job wrote, and the last written.
func (h *daemonHost) gaps(n int) (gaps []string, last time.Time) {
	count, first, last := h.written(false)
	for s := first; !first.IsZero() && !s.After(last) && len(gaps) < n; s = s.Add(time.Minute) {
		if count[s] == 0 {
			gaps = append(gaps, s.Format(time.RFC3339))
		}
	}
	return gaps, last
}

// checkOnce checks that every slot from the first written to the last ran
// exactly once, and that there are at least n.
func (h *daemonHost) checkOnce(n int) {
	count, first, last := h.written(true)
	slots := 0
	for s := first; !first.IsZero() && !s.After(last); s = s.Add(time.Minute) {
		if count[s] != 1 {
			h.t.Errorf("slot %s ran %d times, want once; lines:\n%v", s.Format(time.RFC3339), count[s], readLines(h.t, h.out))
		}
		slots++
	}
	if slots < n {
		h.t.Errorf("%d slots ran, want at least %d", slots, n)
	}
}

// TestDaemonKilledAndStopped cuts the power under the daemon and its job,
// then stops it with SIGTERM mid-job, restarting it each time: in the end
// every slot ran exactly once (the cut-short runs replayed at the next
// start, the slots of the downtime too).
func TestDaemonKilledAndStopped(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	p := h.start("a")
	pid := h.midJob(p)
	powerCut(t, p.cmd.Process.Pid, pid)
	p.cmd.Wait()

	p = h.start("a")
	h.midJob(p)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("daemon after SIGTERM: %v\n%s", err, p.stderr.String())
	}
	if !regexp.MustCompile(`status=interrupted`).MatchString(p.stderr.String()) {
		t.Errorf("the run stopped by SIGTERM was not recorded interrupted:\n%s", p.stderr.String())
	}

	p = h.start("a")
	waitFor(t, "the restarted daemon to have run 8 slots in a row, the cut-short and missed ones replayed", func() bool {
		return h.slotsInARow() >= 8
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	h.checkOnce(8)
	rows := ledgerRows(t, db, `SELECT slot, COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded' GROUP BY slot HAVING COUNT(*) > 1`)
	if len(rows) > 0 {
		t.Errorf("slots that succeeded twice in the ledger: %v", rows)
	}
	if t.Failed() {
		t.Logf("last daemon's log:\n%s", p.stderr.String())
	}
}
