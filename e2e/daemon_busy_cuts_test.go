package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// busyLines is how many lines the busy daemon of TestDaemonBusyCuts runs:
// the 30 of the measure that found outcomes waiting behind the other
// tasks' ledger writes.
const busyLines = 30

// TestDaemonBusyCuts measures the at-least-once moment of a busy daemon:
// busyLines lines firing every (test) minute, the daemon power-cut
// (SIGSTOP, then SIGKILL of it and its jobs) at a random moment of its
// first 0.6 s after each start, restarted, CATCHUP_TEST_CUT_CYCLES times
// (unset: skipped; it is a measure, not a check), then run cleanly and
// stopped. It counts the slots whose job ran to its end twice: each was
// cut between its job's exit and the commit of its outcome, and replayed.
// A job that wrote its line after the cut began (jobs run in process
// groups of their own, frozen a moment after the daemon) is no such slot:
// its line is left out. CATCHUP_TEST_SEED picks the cut moments;
// CATCHUP_TEST_CUT_LOG=PATH keeps the last daemon's log in PATH.BACKEND.
func TestDaemonBusyCuts(t *testing.T) {
	cycles, _ := strconv.Atoi(os.Getenv("CATCHUP_TEST_CUT_CYCLES"))
	if cycles <= 0 {
		t.Skip("a measure: set CATCHUP_TEST_CUT_CYCLES=N to run it")
	}
	seed, _ := strconv.ParseUint(os.Getenv("CATCHUP_TEST_SEED"), 10, 64)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var db string
			if backend == "sqlite" {
				_, db = tempLedger(t)
			} else {
				db = pgLedger(t)
			}
			b := newBusyHost(t, db)
			rng := rand.New(rand.NewPCG(seed, 1))
			for range cycles {
				p := b.start()
				waitFor(t, "the daemon to start", func() bool { return strings.Contains(p.stderr.String(), "event=start") })
				time.Sleep(time.Duration(rng.Int64N(int64(600 * time.Millisecond))))
				b.cut(p)
			}
			p := b.start()
			waitFor(t, "the daemon to start", func() bool { return strings.Contains(p.stderr.String(), "event=start") })
			time.Sleep(3 * time.Second) // the last cut's slots replayed, a few fires
			p.cmd.Process.Signal(syscall.SIGTERM)
			p.cmd.Wait()
			if f := os.Getenv("CATCHUP_TEST_CUT_LOG"); f != "" {
				os.WriteFile(f+"."+backend, []byte(p.stderr.String()), 0o644)
			}
			twice, lines := b.ranTwice()
			t.Logf("%s: %d cycles, %d job lines, %d slots ran twice (%d lines written after a cut began, left out)",
				backend, cycles, lines, len(twice), b.late)
			for _, s := range twice {
				t.Logf("ran twice: %s", s)
			}
		})
	}
}

// busyHost is the busy daemon's crontab, its jobs' output and its cuts.
type busyHost struct {
	t     *testing.T
	db    string
	dir   string
	cron  string
	epoch string
	cuts  []cutSpan // when each cut began and the next start
	late  int       // lines left out by ranTwice
}

// cutSpan is a cut: from its SIGSTOP to the next start (in UnixNano).
type cutSpan struct{ from, to int64 }

func newBusyHost(t *testing.T, db string) *busyHost {
	dir := t.TempDir()
	b := &busyHost{t: t, db: db, dir: dir, cron: filepath.Join(dir, "crontab"),
		epoch: strconv.FormatInt(time.Now().Unix(), 10)}
	var cron strings.Builder
	cron.WriteString("SHELL=/bin/bash\n")
	for i := range busyLines {
		// The job's one act: its slot and when it wrote it (bash's
		// EPOCHREALTIME, no process of its own).
		fmt.Fprintf(&cron, "# catchup: task=j%d\n* * * * * echo \"$CATCHUP_SLOT $EPOCHREALTIME\" >> %s\n", i,
			filepath.Join(dir, fmt.Sprintf("out%d", i)))
	}
	if err := os.WriteFile(b.cron, []byte(cron.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *busyHost) start() *catchupProc {
	if n := len(b.cuts); n > 0 {
		b.cuts[n-1].to = time.Now().UnixNano()
	}
	p := newCatchup(b.t, b.db, "", "daemon", "--crontab", b.cron, "--rescan", "1s", "--tolerance", "2m", "--grace", "5s")
	p.cmd.Env = append(p.cmd.Env, "CATCHUP_TEST_MINUTE=1s", "CATCHUP_TEST_EPOCH="+b.epoch)
	if err := p.cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); p.cmd.Wait() })
	return p
}

// cut freezes the daemon, then its jobs' groups, and kills them all.
func (b *busyHost) cut(p *catchupProc) {
	from := time.Now().UnixNano()
	pid := p.cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGSTOP)
	groups := []int{pid}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range procs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[1] == strconv.Itoa(pid) {
			if g, err := strconv.Atoi(f[2]); err == nil && !contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	powerCut(b.t, groups...)
	p.cmd.Wait()
	b.cuts = append(b.cuts, cutSpan{from: from, to: 1<<63 - 1})
}

// ranTwice returns the slots (task and slot) whose job wrote its line
// twice, the lines written after a cut began left out, and how many lines
// there were.
func (b *busyHost) ranTwice() (twice []string, lines int) {
	for i := range busyLines {
		seen := map[string]int{}
		first := map[string]int64{}
		for _, l := range readLines(b.t, filepath.Join(b.dir, fmt.Sprintf("out%d", i))) {
			f := strings.Fields(l)
			if len(f) != 2 {
				continue // cut while written
			}
			at, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				continue
			}
			if b.afterACut(int64(at * 1e9)) {
				b.late++
				continue
			}
			lines++
			if seen[f[0]]++; seen[f[0]] == 1 {
				first[f[0]] = int64(at * 1e9)
			} else if seen[f[0]] == 2 {
				twice = append(twice, fmt.Sprintf("j%d %s (its job ended %s before the cut)", i, f[0], b.beforeCut(first[f[0]])))
			}
		}
	}
	return twice, lines
}

// beforeCut is how long before the next cut began at was.
func (b *busyHost) beforeCut(at int64) time.Duration {
	for _, c := range b.cuts {
		if c.from > at {
			return time.Duration(c.from - at)
		}
	}
	return -1
}

func (b *busyHost) afterACut(at int64) bool {
	for _, c := range b.cuts {
		if at >= c.from && at < c.to {
			return true
		}
	}
	return false
}
