package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestLoadTopOfTheHour starts 200 `catchup run` processes at once on one
// ledger: 50 tasks fired 4 times each for the same slot, as at the top of
// an hour on a busy host. Every process must end cleanly (no "database is
// locked"), and each (task, slot) must run exactly once.
func TestLoadTopOfTheHour(t *testing.T) {
	if testing.Short() {
		t.Skip("200 processes; skipped with -short")
	}
	_, db := tempLedger(t)
	// Create the ledger first, as the first cron job of the day would.
	if code := newCatchup(t, db, "", "scan", "-v").run(t); code != 0 {
		t.Fatalf("scan on a new ledger exited %d", code)
	}
	const tasks, fires = 50, 4
	type result struct {
		task   string
		code   int
		stderr string
	}
	results := make(chan result, tasks*fires)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < tasks; i++ {
		for f := 0; f < fires; f++ {
			task := fmt.Sprintf("job-%02d", i)
			p := newCatchup(t, db, "2026-11-20T10:00:02Z", "run", "--task", task, "--cron", "0 * * * *", "--tz", "UTC",
				"--", "sh", "-c", "sleep 0.2")
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				code := p.run(t)
				results <- result{task, code, p.stderr.String()}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(results)
	// A fire that comes while its slot runs is a duplicate (exit 0, recorded
	// skipped); one that finds the lock taken before the slot is claimed is
	// a lock skip (exit 75, recorded skipped); one after the slot succeeded
	// finds it done.
	ran, skipped, dups, already := 0, 0, 0, 0
	for r := range results {
		switch {
		case strings.Contains(r.stderr, "locked") && !strings.Contains(r.stderr, "lock held"):
			t.Errorf("%s: %s", r.task, r.stderr)
		case r.code == 75:
			skipped++
		case r.code == 0 && strings.Contains(r.stderr, "duplicate fire of slot"):
			dups++
		case r.code == 0 && strings.Contains(r.stderr, "already succeeded"):
			already++
		case r.code == 0 && r.stderr == "":
			ran++
		default:
			t.Errorf("%s: exit %d: %s", r.task, r.code, r.stderr)
		}
	}
	integrityOK(t, db)
	perSlot := ledgerRows(t, db, `SELECT task, count(*) FROM runs WHERE status = 'succeeded' GROUP BY task, slot`)
	if len(perSlot) != tasks {
		t.Errorf("%d (task, slot) pairs succeeded, want %d", len(perSlot), tasks)
	}
	for _, row := range perSlot {
		if row[1] != "1" {
			t.Errorf("task %s ran %s times for its slot, want 1", row[0], row[1])
		}
	}
	skips := ledgerRows(t, db, `SELECT count(*) FROM runs WHERE status = 'skipped'`)
	if skips[0][0] != fmt.Sprint(skipped+dups) {
		t.Errorf("%s skipped records for %d processes that exited 75 and %d duplicates", skips[0][0], skipped, dups)
	}
	if ran != tasks || ran+skipped+dups+already != tasks*fires {
		t.Errorf("ran %d, skipped %d, duplicates %d, already done %d; want %d runs out of %d fires",
			ran, skipped, dups, already, tasks, tasks*fires)
	}
	t.Logf("200 fires: %d ran, %d skipped (lock held), %d duplicates, %d found the slot done", ran, skipped, dups, already)
}

// TestLoadScanDuringCronFires runs two scans while cron fires the same tasks:
// every slot still runs exactly once, and a last scan leaves nothing missed.
func TestLoadScanDuringCronFires(t *testing.T) {
	if testing.Short() {
		t.Skip("many processes; skipped with -short")
	}
	dir, db := tempLedger(t)
	const tasks = 20
	job := `echo "$CATCHUP_TASK $CATCHUP_SLOT" >> "$W/jobs.log"; sleep 0.05`
	fire := func(now string, i int) *catchupProc {
		p := newCatchup(t, db, now, "run", "--task", fmt.Sprintf("job-%02d", i), "--cron", "0 * * * *", "--tz", "UTC",
			"--", "sh", "-c", job)
		p.cmd.Env = append(p.cmd.Env, "W="+dir)
		return p
	}
	for i := 0; i < tasks; i++ { // registered at 08:00; the host then misses 09:00
		if code := fire("2026-11-20T08:00:05Z", i).run(t); code != 0 {
			t.Fatalf("first fire exited %d", code)
		}
	}
	var procs []*catchupProc
	for i := 0; i < tasks; i++ {
		procs = append(procs, fire("2026-11-20T10:00:02Z", i))
	}
	for s := 0; s < 2; s++ {
		p := newCatchup(t, db, "2026-11-20T10:06:00Z", "scan", "-v")
		p.cmd.Env = append(p.cmd.Env, "W="+dir)
		procs = append(procs, p)
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.run(t) }()
	}
	wg.Wait()
	final := newCatchup(t, db, "2026-11-20T10:30:00Z", "scan", "-v")
	final.cmd.Env = append(final.cmd.Env, "W="+dir)
	if code := final.run(t); code != 0 {
		t.Fatalf("final scan exited %d: %s", code, final.stderr.String())
	}
	integrityOK(t, db)
	count := map[string]int{}
	for _, line := range readLines(t, dir+"/jobs.log") {
		count[line]++
	}
	for i := 0; i < tasks; i++ {
		for _, hour := range []string{"08", "09", "10"} {
			key := fmt.Sprintf("job-%02d 2026-11-20T%s:00:00Z", i, hour)
			if count[key] != 1 {
				t.Errorf("%s ran %d times, want 1", key, count[key])
			}
		}
	}
	if len(count) != tasks*3 {
		t.Errorf("%d distinct (task, slot) runs, want %d", len(count), tasks*3)
	}
	if got := newCatchup(t, db, "2026-11-20T10:30:00Z", "ls", "--missed").run(t); got != 0 {
		t.Errorf("ls --missed exited %d after the final scan, want 0", got)
	}
}
