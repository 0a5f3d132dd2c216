package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// propLine is a line of the job's log: a start, a fail or a done of a run.
type propLine struct {
	event, task string
	slot        int64 // unix seconds
	run         string
	pid         int    // starts only
	trigger     string // starts only: schedule (a fire), replay (a scan's)
}

func (p *propRun) catchup(now string, args ...string) *catchupProc {
	c := newCatchup(p.t, p.db, now, args...)
	c.cmd.Env = append(c.cmd.Env, "W="+p.dir)
	if p.host != "" {
		c.cmd.Env = append(c.cmd.Env, "CATCHUP_HOST="+p.host) // the last one counts
	}
	return c
}

// lines are the job log's lines of one event, or all of them ("").
func (p *propRun) lines(event string) []propLine {
	var out []propLine
	for _, l := range readLines(p.t, filepath.Join(p.dir, "jobs.log")) {
		f := strings.Fields(l)
		if len(f) < 4 || (event != "" && f[0] != event) {
			continue
		}
		slot, err := time.Parse(time.RFC3339, f[2])
		if err != nil {
			p.t.Fatalf("jobs.log line %q: %v", l, err)
		}
		pl := propLine{event: f[0], task: f[1], slot: slot.Unix(), run: f[3]}
		if len(f) > 4 {
			pl.pid, _ = strconv.Atoi(f[4])
		}
		if len(f) > 5 {
			pl.trigger = f[5]
		}
		out = append(out, pl)
	}
	return out
}

func (p *propRun) starts() []propLine { return p.lines("start") }

// alive lists the process groups of jobs still running (each job leads
// its own group).
func (p *propRun) alive() []int {
	var out []int
	for _, s := range p.starts() {
		if state, _ := procStat(fmt.Sprintf("/proc/%d/stat", s.pid)); state != 0 && state != 'Z' && state != 'X' {
			out = append(out, s.pid)
		}
	}
	return out
}

// cut freezes catchup's group and then every job still running, and kills
// them once all are frozen: a power cut. A job that ends or starts between
// the two freezes escapes, as catchup SIGKILLed alone would leave it.
func (p *propRun) cut(c *catchupProc) {
	groups := []int{c.cmd.Process.Pid}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGSTOP)
	for _, g := range p.alive() {
		if syscall.Kill(-g, syscall.SIGSTOP) == nil {
			groups = append(groups, g)
		}
	}
	waitFor(p.t, fmt.Sprintf("process groups %v to freeze", groups), func() bool { return len(unfrozen(groups)) == 0 })
	for _, g := range groups {
		syscall.Kill(-g, syscall.SIGKILL)
	}
}

// fault starts a scan, waits until it started a job (or ended), then
// after delay SIGKILLs catchup alone (kill) or cuts the power (freeze).
func (p *propRun) fault(c *catchupProc, fate string, delay time.Duration) {
	before := len(p.starts())
	if err := c.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	ended := func() bool {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	}
	waitFor(p.t, "the scan to start a replay or end", func() bool { return ended() || len(p.starts()) > before })
	time.Sleep(delay)
	if ended() {
		p.logf("  the scan ended before the fault")
		return
	}
	if fate == "kill" {
		syscall.Kill(c.cmd.Process.Pid, syscall.SIGKILL)
	} else {
		p.cut(c)
	}
	<-exited
}

// waitJobsGone waits until no job runs: an orphan of a killed scan ends
// by itself, its run unrecorded.
func (p *propRun) waitJobsGone() {
	waitFor(p.t, "every job to end", func() bool { return len(p.alive()) == 0 })
}

// check holds the ledger and the job's log to the promise.
func (p *propRun) check() {
	t := p.t
	type rec struct{ id, status, reason, who string }
	bySlot := map[string][]rec{}  // "task slot" -> its records, in order
	status := map[string]string{} // run id -> status
	reg := map[string]int64{}     // task -> its registering slot
	for _, r := range p.runs() {
		status[r[0]] = r[3]
		if r[2] == "" {
			t.Errorf("run %s of %s stands for no slot (%s)", r[0], r[1], r[3])
			continue
		}
		slot, _ := strconv.ParseInt(r[2], 10, 64)
		if first, ok := reg[r[1]]; !ok || slot < first {
			reg[r[1]] = slot
		}
		bySlot[r[1]+" "+r[2]] = append(bySlot[r[1]+" "+r[2]], rec{r[0], r[3], r[4], r[5]})
	}
	succeeded := map[string]int64{} // "task slot" -> the id of its success
	folded := 0
	for _, task := range p.tasks {
		first, ok := reg[task.name]
		if !ok {
			t.Errorf("%s: no run recorded, not even its registering fire", task.name)
			continue
		}
		task.sched.Slots(time.Unix(first-1, 0), propEnd, func(s time.Time) bool {
			key := fmt.Sprintf("%s %d", task.name, s.Unix())
			var outcomes []string
			for _, r := range bySlot[key] {
				switch {
				case r.status == "skipped" && strings.HasPrefix(r.reason, "coalesced into the replay of slot ") &&
					!strings.Contains(r.reason, "given back"):
					// Folded into a coalesced replay: it settles the slot,
					// a failure before it too (its interval now covered).
					outcomes = slices.DeleteFunc(outcomes, func(o string) bool {
						return strings.HasPrefix(o, "failed") || strings.HasPrefix(o, "timeout")
					})
					outcomes = append(outcomes, "folded #"+r.id)
					folded++
					continue
				}
				switch r.status {
				case "succeeded":
					outcomes = p.backfilled(p.retried(outcomes, r.id), r.id)
					if _, seen := succeeded[key]; !seen { // the first success holds the slot
						succeeded[key], _ = strconv.ParseInt(r.id, 10, 64)
					}
					outcomes = append(outcomes, "succeeded #"+r.id)
				case "failed", "timeout":
					outcomes = append(p.backfilled(p.retried(outcomes, r.id), r.id), r.status+" #"+r.id)
				case "expired":
					if r.reason == "" {
						t.Errorf("%s %s: expired with no reason (#%s)", task.name, s.Format(time.RFC3339), r.id)
					}
					outcomes = append(p.retried(outcomes, r.id), "expired #"+r.id)
				case "running":
					t.Errorf("%s %s: run #%s (%s) still recorded running after the final scan", task.name, s.Format(time.RFC3339), r.id, r.who)
				}
			}
			if len(outcomes) != 1 {
				t.Errorf("%s %s: %d outcomes %v, want exactly one; records %v", task.name, s.Format(time.RFC3339), len(outcomes), outcomes, bySlot[key])
			}
			return true
		})
	}
	// No job of a slot starts once a run of it was recorded succeeded (run
	// ids grow), and every job that completed did so under a run recorded
	// succeeded, or interrupted: catchup gone before its job's end (the
	// documented at-least-once case).
	for _, s := range p.starts() {
		key := fmt.Sprintf("%s %d", s.task, s.slot)
		id, _ := strconv.ParseInt(s.run, 10, 64)
		if ok, held := succeeded[key]; held && id > ok {
			t.Errorf("%s %s: job of run #%s started after run #%d succeeded (records %v)",
				s.task, time.Unix(s.slot, 0).UTC().Format(time.RFC3339), s.run, ok, bySlot[key])
		}
	}
	completed := map[string]bool{}
	for _, d := range p.lines("done") {
		completed[d.run] = true
		if st := status[d.run]; st != "succeeded" && st != "interrupted" {
			t.Errorf("%s %s: job of run #%s completed, but the run is recorded %q",
				d.task, time.Unix(d.slot, 0).UTC().Format(time.RFC3339), d.run, st)
		}
	}
	lost := 0 // completed, then recorded interrupted: the at-least-once case
	for run, done := range completed {
		if done && status[run] == "interrupted" {
			lost++
		}
	}
	t.Logf("%d jobs started, %d completed (%d of them unrecorded), %d slots succeeded, %d folded", len(p.starts()), len(completed), lost, len(succeeded), folded)
	for key, id := range succeeded {
		if !completed[strconv.FormatInt(id, 10)] {
			t.Errorf("%s: run #%d recorded succeeded, but its job never completed", key, id)
		}
	}
	if _, err := os.Stat(filepath.Join(p.dir, "fail")); err == nil {
		t.Errorf("the fail switch was left on")
	}
}
