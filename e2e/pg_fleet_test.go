package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// host is one simulated host of a fleet sharing a PostgreSQL ledger: its
// own name and its own private state directory (its flock locks). Its jobs
// see its directory as $W.
type host struct {
	t        *testing.T
	db, name string
	dir      string
}

func fleetHost(t *testing.T, db, name string) *host {
	return &host{t: t, db: db, name: name, dir: t.TempDir()}
}

func (h *host) catchup(now string, args ...string) *catchupProc {
	p := newCatchup(h.t, h.db, now, args...)
	p.cmd.Dir = h.dir
	p.cmd.Env = append(p.cmd.Env, "CATCHUP_HOST="+h.name, "HOME="+h.dir, "CATCHUP_STATE_DIR="+filepath.Join(h.dir, "state"), "W="+h.dir)
	return p
}

// TestFleetRace: 5 hosts fire the same 20 slots at the same instant. Each
// slot runs exactly once; the losers are duplicate fires of a slot another
// host runs (or ran): they exit 0 and are recorded skipped; the ledger shows
// which host ran each slot.
func TestFleetRace(t *testing.T) {
	db := pgLedger(t)
	ran := filepath.Join(t.TempDir(), "ran.log")
	const hosts, slots = 5, 20
	var procs []*catchupProc
	for h := 0; h < hosts; h++ {
		host := fleetHost(t, db, fmt.Sprintf("host-%d", h))
		for s := 0; s < slots; s++ {
			procs = append(procs, host.catchup("2026-11-20T10:00:03Z", "run", "--task", fmt.Sprintf("job-%02d", s),
				"--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", `echo "$CATCHUP_TASK $CATCHUP_SLOT" >> `+ran+`; sleep 0.2`))
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, len(procs))
	for i, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = p.run(t) }()
	}
	wg.Wait()
	lost := 0
	for i, p := range procs {
		if codes[i] != 0 {
			t.Errorf("a fire exited %d: %s", codes[i], p.stderr.String())
		}
		if strings.Contains(p.stderr.String(), "duplicate fire of slot") {
			lost++
		}
	}
	count := map[string]int{}
	for _, l := range readLines(t, ran) {
		count[l]++
	}
	for s := 0; s < slots; s++ {
		key := fmt.Sprintf("job-%02d 2026-11-20T10:00:00Z", s)
		if count[key] != 1 {
			t.Errorf("%s ran %d times, want exactly 1", key, count[key])
		}
	}
	if lost != (hosts-1)*slots {
		t.Errorf("%d fires lost the claim, want %d", lost, (hosts-1)*slots)
	}
	out := newCatchup(t, db, "2026-11-20T10:00:30Z", "history", "--limit", "500", "-o", "json")
	if code := out.run(t); code != 0 {
		t.Fatalf("history: %s", out.stderr.String())
	}
	if n := strings.Count(out.stdout.String(), `"status": "succeeded"`); n != slots {
		t.Errorf("history shows %d succeeded runs, want %d (one per slot)", n, slots)
	}
	if n := strings.Count(out.stdout.String(), `"host": "host-`); n != len(procs) {
		t.Errorf("history shows %d records with their host, want %d (one per fire)", n, len(procs))
	}
	t.Logf("%d fires from %d hosts: %d slots ran once each, %d fires lost the claim", len(procs), hosts, slots, lost)
}

// TestFleetHostKilled: a host loses power mid-run (its catchup and its job
// frozen, then killed: no heartbeat any more). Within the lease, other
// hosts leave the run alone; past it, any host's scan interrupts it and
// replays the slot, and exactly one outcome counts. The dead run's last
// heartbeat is about an hour before the scans' clock: a 1h lease has not
// run out yet, a 2s lease has.
func TestFleetHostKilled(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	done := filepath.Join(t.TempDir(), "done.log")
	// The scheduled fire hangs (and dies with its host); a replay finishes.
	job := `if [ "$CATCHUP_TRIGGER" = schedule ]; then echo $$ > "$W/job.pid"; touch "$W/started"; sleep 30; fi; ` +
		`echo "$CATCHUP_SLOT" >> ` + done
	p := a.catchup("2026-11-20T02:00:05Z", "--lease", "2s", "run", "--task", "settle", "--cron", "0 2 * * *",
		"--tz", "UTC", "--", "sh", "-c", job)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(a.dir, "started"))
	// host-a loses power: catchup and its job at once.
	jobPID := readPID(t, filepath.Join(a.dir, "job.pid"))
	powerCut(t, p.cmd.Process.Pid, jobPID)
	p.cmd.Wait()

	early := b.catchup("2026-11-20T03:00:00Z", "--lease", "1h", "scan", "-v")
	if code := early.run(t); code != 0 || !strings.Contains(early.stdout.String(), "replayed 0") {
		t.Fatalf("within the lease another host replayed the live-looking run: exit %d %s", code, early.stdout.String())
	}
	late := b.catchup("2026-11-20T03:00:00Z", "--lease", "2s", "scan", "-v")
	if code := late.run(t); code != 0 {
		t.Fatalf("scan after the lease: exit %d: %s", code, late.stderr.String())
	}
	if !strings.Contains(late.stdout.String(), "settle: 1 missed, replayed 1") {
		t.Fatalf("scan after the lease: %s", late.stdout.String())
	}
	if got := readLines(t, done); len(got) != 1 || got[0] != "2026-11-20T02:00:00Z" {
		t.Errorf("the slot finished %v, want exactly once", got)
	}
	rows := newCatchup(t, db, "2026-11-20T03:00:00Z", "history", "-o", "json")
	rows.run(t)
	hist := rows.stdout.String()
	if strings.Count(hist, `"status": "interrupted"`) != 1 || strings.Count(hist, `"status": "succeeded"`) != 1 ||
		!strings.Contains(hist, `"host": "host-b"`) {
		t.Errorf("history after the lease: %s", hist)
	}
}

// TestFleetLockSkipStaysMissed: a host that claims a slot while another
// host runs the task gives the slot back (exit 75); the slot stays missed,
// and a scan replays it once the task is free.
func TestFleetLockSkipStaysMissed(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	done := filepath.Join(t.TempDir(), "done.log")
	job := `echo "$CATCHUP_SLOT" >> ` + done + `; [ "$CATCHUP_SLOT" = 2026-11-20T01:00:00Z ] || exit 0; touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done`
	long := a.catchup("2026-11-20T01:00:05Z", "run", "--task", "hourly", "--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", job)
	if err := long.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(a.dir, "started"))
	// The hosts' clocks are an hour apart here: a lease of 2h keeps host-a's
	// run alive in host-b's eyes (its heartbeats are an hour old to it).
	next := b.catchup("2026-11-20T02:00:05Z", "--lease", "2h", "run", "--task", "hourly", "--cron", "0 * * * *", "--tz", "UTC", "--", "sh", "-c", job)
	if code := next.run(t); code != 75 || !strings.Contains(next.stderr.String(), "on another host") {
		t.Fatalf("fire beside another host's run: exit %d %q, want 75", code, next.stderr.String())
	}
	touch(t, filepath.Join(a.dir, "release"))
	if err := long.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	missed := b.catchup("2026-11-20T02:30:00Z", "ls", "--missed", "-o", "json")
	if code := missed.run(t); code != 1 || !strings.Contains(missed.stdout.String(), "2026-11-20T02:00:00Z") {
		t.Fatalf("the given-back slot is not missed: exit %d %s", code, missed.stdout.String())
	}
	scan := b.catchup("2026-11-20T02:30:00Z", "scan", "-v")
	if code := scan.run(t); code != 0 || !strings.Contains(scan.stdout.String(), "hourly: 1 missed, replayed 1") {
		t.Fatalf("scan: exit %d %s %s", code, scan.stdout.String(), scan.stderr.String())
	}
	if got := readLines(t, done); strings.Join(got, " ") != "2026-11-20T01:00:00Z 2026-11-20T02:00:00Z" {
		t.Errorf("ran %v, want each slot once", got)
	}
}
