package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// v1Ledger makes a ledger of schema version 1, as catchup before version 2
// left it: schema_version, migration 0001 alone, and a task "backup" with
// a succeeded run of slot t0 (id 1) and a running one of t0+1h (id 2).
func v1Ledger(t *testing.T, be backend) string {
	t.Helper()
	ctx := t.Context()
	ddl, err := os.ReadFile(filepath.Join(be.name, "migrations", "0001_init.sql"))
	if err != nil {
		t.Fatal(err)
	}
	slot := t0.Add(time.Hour)
	if be.name == "sqlite" {
		path := filepath.Join(t.TempDir(), "ledger.db")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{
			`CREATE TABLE schema_version (version INTEGER PRIMARY KEY) STRICT`,
			string(ddl),
			`INSERT INTO schema_version (version) VALUES (1)`,
			fmt.Sprintf(`INSERT INTO tasks (name, schedule, argv, registered_at, updated_at)
 VALUES ('backup', '@hourly', '["/bin/backup"]', %d, %d)`, t0.UnixMilli(), t0.UnixMilli()),
			fmt.Sprintf(`INSERT INTO runs (id, task, slot, trigger, status, started_at, ended_at)
 VALUES (1, 'backup', %d, 'schedule', 'succeeded', %d, %d)`, t0.Unix(), t0.UnixMilli(), t0.UnixMilli()+1000),
			fmt.Sprintf(`INSERT INTO runs (id, task, slot, trigger, status, started_at)
 VALUES (2, 'backup', %d, 'schedule', 'running', %d)`, slot.Unix(), slot.UnixMilli()),
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("make a v1 ledger: %v", err)
			}
		}
		return path
	}
	dsn := be.ledger(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range []string{
		`CREATE TABLE schema_version (version integer PRIMARY KEY)`,
		string(ddl),
		`INSERT INTO schema_version (version) VALUES (1)`,
		`INSERT INTO tasks (name, schedule, argv, registered_at, updated_at) VALUES ('backup', '@hourly', '["/bin/backup"]', $1, $1)`,
		`INSERT INTO runs (id, task, slot, trigger, status, started_at, ended_at)
 VALUES (1, 'backup', $1, 'schedule', 'succeeded', $1, $1::timestamptz + interval '1 second')`,
		`INSERT INTO runs (id, task, slot, trigger, status, started_at) VALUES (2, 'backup', $1::timestamptz + interval '1 hour', 'schedule', 'running', $1)`,
		`SELECT setval('runs_id_seq', 2)`,
		`INSERT INTO slots (task, slot, succeeded_id) VALUES ('backup', $1, 1)`,
		`INSERT INTO slots (task, slot, running_id) VALUES ('backup', $1::timestamptz + interval '1 hour', 2)`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{t0}
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("make a v1 ledger: %v", err)
		}
	}
	return dsn
}

// schemaVersions lists the schema_version rows of the ledger at location.
func schemaVersions(t *testing.T, be backend, location string) string {
	t.Helper()
	const q = `SELECT version FROM schema_version ORDER BY version`
	var versions []int
	if be.name == "sqlite" {
		rows, err := rawDB(t, location).QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			versions = append(versions, v)
		}
		return fmt.Sprint(versions)
	}
	rows, err := pgAdmin(t, location).Query(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	versions, err = pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(versions)
}

// A version 1 ledger is brought to version 2 when opened, keeping what it
// holds, and the new columns work at once.
func TestMigrateFromV1(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		location := v1Ledger(t, be)
		s := be.open(t, location)
		ctx := t.Context()
		wantVersions := "[1 2 3 4 5 6 7 8 9 10]"
		if be.name == "postgres" {
			wantVersions = "[1 2 3 4 5 6 7 8 9]" // version 10 changed SQLite's index only
		}
		if got := schemaVersions(t, be, location); got != wantVersions {
			t.Errorf("schema versions after opening a v1 ledger: %s, want %s", got, wantVersions)
		}

		task, err := s.Task(ctx, "backup")
		if err != nil {
			t.Fatal(err)
		}
		want := store.Task{Name: "backup", Schedule: "@hourly", Replay: "all", Argv: []string{"/bin/backup"},
			RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0}
		if !reflect.DeepEqual(task, want) {
			t.Errorf("v1 task after migration\n got %#v\nwant %#v", task, want)
		}
		if r := getRun(t, s, 2); r.Status != store.StatusRunning || r.Progress != nil || r.Checkpoint != "" {
			t.Errorf("v1 run after migration = %+v", r)
		}
		// The v1 success still holds its slot.
		if res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerReplay,
			StartedAt: t0}}); res.Claimed || res.Run.ID != 1 {
			t.Errorf("claim of a slot done under v1 = %+v", res)
		}

		// Options and the watermark.
		task.Timeout, task.NotifyCmd, task.SettledThrough = time.Hour, "notify", t0.Add(3*time.Hour)
		upsert(t, s, task)
		want = task
		want.SettledThrough = time.Time{} // same schedule: the v1 "none" stays
		if got, err := s.Task(ctx, "backup"); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("after UpsertTask = %#v, %v; want %#v", got, err, want)
		}
		if err := s.SetSettled(ctx, "backup", t0.Add(30*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := watermark(t, s, "backup"); !got.Equal(t0.Add(30 * time.Minute)) {
			t.Errorf("SettledThrough = %v after SetSettled", got)
		}
		// Progress on the run v1 left running, then its interruption.
		if err := s.SetProgress(ctx, 2, 70, "v2 note"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Interrupt(ctx, 2, t0.Add(2*time.Hour), "gone"); err != nil {
			t.Fatal(err)
		}
		if note, ok, err := s.LastCheckpoint(ctx, "backup", t0.Add(time.Hour)); err != nil || !ok || note != "v2 note" {
			t.Errorf("LastCheckpoint = %q, %v, %v", note, ok, err)
		}
		counts, err := s.StatusCounts(ctx)
		if err != nil || !reflect.DeepEqual(counts, map[string]map[string]int64{"backup": {"succeeded": 1, "interrupted": 1}}) {
			t.Errorf("StatusCounts = %v, %v", counts, err)
		}
		// Version 7's index of failures: the run v1 left, interrupted.
		if fails, err := s.LastFailures(ctx); err != nil || len(fails) != 1 || !fails["backup"].Equal(t0.Add(2*time.Hour)) {
			t.Errorf("LastFailures = %v, %v; want backup's interruption at %v", fails, err, t0.Add(2*time.Hour))
		}
		if res, err := s.Prune(ctx, store.PruneRequest{Before: t0.Add(24 * time.Hour)}); err != nil || res.Runs != 1 {
			t.Errorf("Prune = %+v, %v; want the v1 success", res, err)
		}
		// Pruned, the v1 success still holds its slot.
		if res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerReplay,
			StartedAt: t0}}); res.Claimed || res.Run.ID != 1 {
			t.Errorf("claim of a pruned slot done under v1 = %+v", res)
		}
		// Opening again finds version 2 and changes nothing.
		be.open(t, location)
	})
}
