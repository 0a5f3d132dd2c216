package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The order rule of TestScanExactlyOnceUnderFaults, under --concurrency:
// only different tasks overlap; a task's own replays run one at a time,
// oldest first, a later slot never started before the job of an earlier
// one has ended.

// checkLanes holds the jobs a scan left to finish started (the job log's
// lines from index from on) to the rule: per task, each start comes after
// the end (done or fail) of the task's previous start in the scan, and for
// a later slot. It notes the most jobs seen running at once.
func (p *propRun) checkLanes(what string, from int) {
	all := p.lines("")
	if from > len(all) {
		from = len(all)
	}
	ended := map[string]int{} // run id -> index of its end line
	for i, l := range all[from:] {
		if l.event == "done" || l.event == "fail" {
			ended[l.run] = from + i
		}
	}
	last := map[string]propLine{}   // task -> its latest start in the scan
	replay := map[string]propLine{} // task -> its latest replay in the scan
	running := map[string]bool{}    // run ids started in the scan, not yet ended
	for i, l := range all[from:] {
		i += from
		switch l.event {
		case "start":
			if prev, ok := last[l.task]; ok {
				if end, done := ended[prev.run]; !done || end > i {
					p.t.Errorf("%s: %s's job of slot %s (run #%s, %s) started while its job of slot %s (run #%s, %s) still ran",
						what, l.task, propSlot(l.slot), l.run, l.trigger, propSlot(prev.slot), prev.run, prev.trigger)
				}
			}
			last[l.task] = l
			if l.trigger == "schedule" || l.trigger == "manual" { // a fire beside the scan runs its own slot, the missed ones left to replays
				running[l.run] = true
				p.overlap = max(p.overlap, len(running))
				continue
			}
			if prev, ok := replay[l.task]; ok && l.slot <= prev.slot {
				p.t.Errorf("%s: %s's slot %s replayed after its slot %s: want oldest first, each once",
					what, l.task, propSlot(l.slot), propSlot(prev.slot))
			}
			replay[l.task] = l
			running[l.run] = true
			p.overlap = max(p.overlap, len(running))
		default:
			delete(running, l.run)
		}
	}
}

// checkOrder holds every replay, across the scans (killed ones too), to
// oldest first per task: once a job of a slot started, no scan starts one
// of an earlier slot of its task, but for a retry of a failed one (a fire
// beside a scan runs its own slot, before the missed ones are replayed, and
// replays first the slot of a fire found dead; a backfill runs the slots it
// is told, expired ones too).
func (p *propRun) checkOrder() {
	starts := p.starts()
	latest := map[string]propLine{} // task -> its latest replayed slot so far
	failed := map[string]bool{}     // "task slot" whose job failed: --retry-failed may retry it later
	for _, f := range p.lines("fail") {
		failed[fmt.Sprintf("%s %d", f.task, f.slot)] = true
	}
	// "task slot" a fire or a backfill ran: a later fire may replay first
	// the slot of a dead fire; a backfill of a killed coalesced replay's
	// slot gives its gap back, to be replayed after it.
	fired := map[string]bool{}
	for _, s := range starts {
		if s.trigger == "schedule" || s.trigger == "manual" || s.trigger == "backfill" {
			fired[fmt.Sprintf("%s %d", s.task, s.slot)] = true
		}
	}
	for _, s := range starts[min(p.scanFrom, len(starts)):] {
		if key := fmt.Sprintf("%s %d", s.task, s.slot); failed[key] || fired[key] ||
			s.trigger == "schedule" || s.trigger == "manual" || s.trigger == "backfill" {
			continue
		}
		if prev, ok := latest[s.task]; ok && s.slot < prev.slot {
			p.t.Errorf("%s: slot %s replayed (run #%s) after its later slot %s (run #%s)",
				s.task, propSlot(s.slot), s.run, propSlot(prev.slot), prev.run)
			continue
		}
		latest[s.task] = s
	}
	p.t.Logf("%d replays (%d jobs failed); at most %d jobs at once in a scan left to finish", len(starts)-min(p.scanFrom, len(starts)), len(p.lines("fail")), p.overlap)
}

func propSlot(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// runs are the ledger's runs, oldest first: id, task, slot (unix seconds,
// or empty), status, error, and who ran it when (for a failure's message),
// read from SQLite or PostgreSQL.
func (p *propRun) runs() [][]string {
	if !p.pg {
		return ledgerRows(p.t, p.db, `SELECT id, task, coalesce(slot, ''), status, error,
			trigger || ' by ' || host || ' pid ' || pid || ' from ' || started_at FROM runs ORDER BY runs.id`)
	}
	conn, err := pgx.Connect(context.Background(), p.db)
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT id::text, task, coalesce(extract(epoch FROM slot)::bigint::text, ''), status, error,
		trigger || ' by ' || host || ' pid ' || pid || ' from ' || started_at FROM runs ORDER BY runs.id`)
	if err != nil {
		p.t.Fatal(err)
	}
	var out [][]string
	for rows.Next() {
		r := make([]string, 6)
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]); err != nil {
			p.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		p.t.Fatal(err)
	}
	return out
}

// maxRunID is the ledger's latest run id (0: none).
func (p *propRun) maxRunID() int64 {
	rs := p.runs()
	if len(rs) == 0 {
		return 0
	}
	id, _ := strconv.ParseInt(rs[len(rs)-1][0], 10, 64)
	return id
}

// retried drops the failures from a slot's outcomes when the record id
// that follows them is a --retry-failed scan's: its retry (succeeded or
// failed again), or its retry given up (expired beyond --max-replays or the window), which a
// failed slot is, counted missed by that scan. Any other record after a
// failure is a second outcome.
func (p *propRun) retried(outcomes []string, id string) []string {
	return supersede(outcomes, id, p.retries, "failed", "timeout")
}

// backfilled drops the expiries from a slot's outcomes when the record id
// that follows them is a backfill's: it ran the slot expired unrun.
func (p *propRun) backfilled(outcomes []string, id string) []string {
	return supersede(outcomes, id, p.backfills, "expired")
}

// supersede drops the outcomes of the given statuses when id is in one of
// the ranges (after, up to].
func supersede(outcomes []string, id string, ranges [][2]int64, statuses ...string) []string {
	n, _ := strconv.ParseInt(id, 10, 64)
	for _, r := range ranges {
		if n > r[0] && n <= r[1] {
			return slices.DeleteFunc(outcomes, func(o string) bool {
				return slices.Contains(statuses, strings.Fields(o)[0])
			})
		}
	}
	return outcomes
}

// fireBeside starts, one time in two, cron's fire of the slot at now of
// an every-minute task beside the scan about to run (which may be
// replaying that task's older slots), and returns what waits for it: it
// runs its slot (exit 0, or 3 failing), or finds the task's lock held
// (75: a lock skip, the slot left to a scan) or the slot held (0).
func (p *propRun) fireBeside(now time.Time) func(failing bool) {
	var every []propTask
	for _, task := range p.tasks {
		if task.expr == "* * * * *" {
			every = append(every, task)
		}
	}
	if p.rng.IntN(2) != 0 || len(every) == 0 {
		return func(bool) {}
	}
	task := every[p.rng.IntN(len(every))]
	p.logf("  fire %s at %s beside it", task.name, now.Format(time.RFC3339))
	c := p.catchup(now.Add(2*time.Second).Format(time.RFC3339), "run", "--task", task.name,
		"--cron", task.expr, "--tz", task.zone, "--replay", task.replay, "--", "sh", "-c", propJob)
	if err := c.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	return func(failing bool) {
		c.cmd.Wait()
		switch code := c.cmd.ProcessState.ExitCode(); {
		case code == 0, code == 75, code == 3 && failing:
			p.logf("  the fire beside it exited %d", code)
		default:
			p.t.Errorf("fire of %s beside the scan at %s exited %d: %s", task.name, now.Format(time.RFC3339), code, c.stderr.String())
		}
	}
}

// twinScan starts, one time in three, the same scan at the same clock
// beside it: on PostgreSQL as the fleet's other host, on SQLite as a
// second process of this one. It returns what waits for it.
func (p *propRun) twinScan(now time.Time, args []string, failing bool) func() {
	if args[0] != "scan" || p.rng.IntN(3) != 0 {
		return func() {}
	}
	host := p.host
	if p.pg {
		p.host = map[string]string{"testhost": "otherhost"}[host]
		if p.host == "" {
			p.host = "testhost"
		}
	}
	p.logf("  the same scan beside it, as %q", p.host)
	c := p.catchup(now.Format(time.RFC3339), args...)
	p.host = host
	if err := c.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	return func() {
		c.cmd.Wait()
		if code := c.cmd.ProcessState.ExitCode(); code != 0 && !(failing && code == 1) {
			p.t.Errorf("the twin scan at %s exited %d: %s%s", now.Format(time.RFC3339), code, c.stdout.String(), c.stderr.String())
		}
	}
}
