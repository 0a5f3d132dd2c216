// Command genledger writes a large catchup ledger for scripts/bench.sh:
// TASKS tasks with a schedule, each with RUNS succeeded runs (one per slot,
// back from -now), in bulk. The schema comes from the store/sqlite package; the
// rows are written in one transaction with plain INSERTs, since a ledger
// of a million runs through one claim at a time would take minutes.
//
//	go run ./scripts/genledger -db /tmp/big.db -tasks 1000 -runs 1000 -cron '* * * * *' -now 2026-11-20T00:00:00Z
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"time"

	_ "modernc.org/sqlite"

	"github.com/catchup/catchup/store/sqlite"
)

func main() {
	db := flag.String("db", "", "ledger file to create")
	tasks := flag.Int("tasks", 1000, "number of tasks")
	runs := flag.Int("runs", 1, "runs per task, one per minute, the latest at -now")
	cron := flag.String("cron", "* * * * *", "schedule of every task")
	argv := flag.String("cmd", "/bin/true", "the registered command")
	nowFlag := flag.String("now", "2026-11-20T00:00:00Z", "the time of the latest run (RFC 3339)")
	registered := flag.String("registered", "", "registration time (default: the first run)")
	cold := flag.Bool("cold", false, "leave the tasks' watermarks unset, as before any scan (default: at the latest run, as scans that kept up leave them)")
	flag.Parse()
	if err := run(*db, *tasks, *runs, *cron, *argv, *nowFlag, *registered, *cold); err != nil {
		fmt.Fprintln(os.Stderr, "genledger:", err)
		os.Exit(1)
	}
}

func run(path string, tasks, runs int, cron, argv, nowS, regS string, cold bool) error {
	if path == "" {
		return fmt.Errorf("-db is required")
	}
	now, err := time.Parse(time.RFC3339, nowS)
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path) // creates the schema
	if err != nil {
		return err
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=synchronous(OFF)")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	first := now.Add(-time.Duration(runs-1) * time.Minute)
	reg := first
	if regS != "" {
		if reg, err = time.Parse(time.RFC3339, regS); err != nil {
			return err
		}
	}
	insTask, err := tx.PrepareContext(ctx, `INSERT INTO tasks (name, schedule, tz, replay, argv, dir, source, registered_at, updated_at, settled_through)
VALUES (?, ?, 'UTC', 'all', ?, '/', 'run', ?, ?, ?)`)
	if err != nil {
		return err
	}
	insRun, err := tx.PrepareContext(ctx, `INSERT INTO runs (task, slot, trigger, status, attempt, exit_code, started_at, ended_at, host, pid, boot_id)
VALUES (?, ?, 'schedule', 'succeeded', 1, 0, ?, ?, 'bench', 1, 'bench')`)
	if err != nil {
		return err
	}
	// The host that fired the runs was seen up from the first to the
	// latest, as its claims record it: the readers read a missed slot's
	// cause from the boots of the hosts that fired the task.
	if _, err := tx.ExecContext(ctx, `INSERT INTO boots (host, boot_id, boot_time, first_seen, last_seen) VALUES ('bench', 'bench', ?, ?, ?)`,
		first.Add(-time.Hour).UnixMilli(), first.UnixMilli(), now.UnixMilli()); err != nil {
		return err
	}
	for i := 0; i < tasks; i++ {
		name := fmt.Sprintf("task-%04d", i)
		settled := now.UnixMilli() // the latest run's slot: scans kept up with it
		if cold {
			settled = reg.UnixMilli() - 1000
		}
		if _, err := insTask.ExecContext(ctx, name, cron, fmt.Sprintf("[%q]", argv), reg.UnixMilli(), now.UnixMilli(), settled); err != nil {
			return err
		}
		for j := 0; j < runs; j++ {
			slot := first.Add(time.Duration(j) * time.Minute)
			ms := slot.UnixMilli() + 1000
			if _, err := insRun.ExecContext(ctx, name, slot.Unix(), ms, ms+5); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
