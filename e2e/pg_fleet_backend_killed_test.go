package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFleetScanBackendsKilled: while host-a and host-b scan the same
// backlog at once, host-a's PostgreSQL backends are terminated
// (pg_terminate_backend) again and again, in the middle of its claims,
// locks, heartbeats and outcomes. host-a may stop (exit 2, one line naming
// the ledger) or ride it out; never a panic, never a slot run twice. After
// the lease two clean scans leave every slot run exactly once, oldest first.
func TestFleetScanBackendsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills PostgreSQL backends; skipped with -short")
	}
	db := pgLedger(t)
	ran := filepath.Join(t.TempDir(), "ran.log")
	job := `echo "$CATCHUP_TASK $CATCHUP_SLOT $CATCHUP_HOST" >> ` + ran + `; sleep 0.01`
	tasks := []string{"k1", "k2", "k3"}
	reg := fleetHost(t, db, "host-r")
	for _, name := range tasks {
		p := reg.catchup("2026-11-20T05:00:05Z", "run", "--task", name, "--cron", "* * * * *", "--tz", "UTC", "--", "sh", "-c", job)
		if code := p.run(t); code != 0 {
			t.Fatalf("registering fire of %s: exit %d %s", name, code, p.stderr.String())
		}
	}
	dsnA, roleA, _ := budgetRole(t, db, 20)
	a := fleetHost(t, dsnA, "host-a")
	b := fleetHost(t, db, "host-b")
	const now = "2026-11-20T05:40:30Z"
	pa := a.catchup(now, "--lease", "2s", "scan", "--concurrency", "3")
	pb := b.catchup(now, "--lease", "2s", "scan", "--concurrency", "3")
	admin := pgAdminConn(t)
	stop := make(chan struct{})
	killed := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // host-a's backends, terminated from its first replay on, every 10-160 ms, until its scan ends
		defer wg.Done()
		for !strings.Contains(strings.Join(readLines(t, ran), "\n"), "host-a") {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(10+rand.IntN(150)) * time.Millisecond):
			}
			var n int
			if err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1`, roleA).Scan(&n); err == nil {
				killed += n
			}
		}
	}()
	codes := make([]int, 2)
	var scans sync.WaitGroup
	for i, p := range []*catchupProc{pa, pb} {
		scans.Add(1)
		go func() { defer scans.Done(); codes[i] = p.run(t) }()
	}
	scans.Wait()
	close(stop)
	wg.Wait()
	t.Logf("terminated %d of host-a's backends; host-a exit %d:\n%s%s\nhost-b exit %d:\n%s%s", killed, codes[0],
		pa.stdout.String(), pa.stderr.String(), codes[1], pb.stdout.String(), pb.stderr.String())
	for i, p := range []*catchupProc{pa, pb} {
		if codes[i] != 0 && codes[i] != 2 {
			t.Errorf("scan %d exited %d, want 0 or 2 (the ledger lost)", i, codes[i])
		}
		if s := p.stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
			t.Errorf("scan %d panicked: %s", i, s)
		}
	}
	// Past the lease (its clock 30 s on), twice: a slot left held by a
	// claim whose catchup gave up is dead now, and the first scan may leave
	// a task's later slots to the next.
	for _, at := range []string{"2026-11-20T05:41:00Z", "2026-11-20T05:41:05Z"} {
		c := b.catchup(at, "--lease", "2s", "scan")
		if code := c.run(t); code != 0 {
			t.Errorf("clean scan at %s: exit %d %s%s", at, code, c.stdout.String(), c.stderr.String())
		}
	}
	count := map[string]int{}
	order := map[string][]string{}
	for _, l := range readLines(t, ran) {
		f := strings.Fields(l)
		count[f[0]+" "+f[1]]++
		order[f[0]] = append(order[f[0]], f[1])
	}
	for _, name := range tasks {
		var want []string
		for m := 0; m <= 36; m++ { // 05:00 .. 05:36, the last slot past the 5m tolerance at 05:41:05
			want = append(want, fmt.Sprintf("2026-11-20T05:%02d:00Z", m))
		}
		for _, s := range want {
			if n := count[name+" "+s]; n != 1 {
				t.Errorf("%s slot %s ran %d times, want once", name, s, n)
			}
		}
		if got := order[name]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s ran %v, want its slots once each, oldest first", name, got)
		}
	}
}
