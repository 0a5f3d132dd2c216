package catchup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
)

// testPostgres opens a shared ledger in a schema of its own on the test
// server, dropped when the test ends; it skips without a server.
func testPostgres(t *testing.T) *postgres.Ledger {
	t.Helper()
	dsn := os.Getenv("CATCHUP_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("CATCHUP_TEST_POSTGRES_DSN not set: PostgreSQL tests skipped")
	}
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	schema := "catchup_domain_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+schema)
	u.RawQuery = q.Encode()
	pg, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return pg
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		runs int
	}{
		"no runs: the task still goes over": {runs: 0},
		"one page and a bit":                {runs: migratePage + 1},
		"exactly one page":                  {runs: migratePage},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dst := testPostgres(t)
			src, path := testLedger(t)
			reg := mustTime(t, "2026-03-01T00:00:00Z")
			if err := src.UpsertTask(ctx, store.Task{Name: "job", Schedule: "* * * * *", TZ: "UTC", Replay: "all",
				Argv: []string{"true"}, Source: "run", RegisteredAt: reg, UpdatedAt: reg}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.runs; i++ {
				slot := reg.Add(time.Duration(i) * time.Minute)
				if _, err := src.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule,
					Status: store.StatusSkipped, Attempt: 1, StartedAt: slot, EndedAt: slot, Host: "testhost"}); err != nil {
					t.Fatal(err)
				}
			}
			m := testMachine(path, reg)
			mg := Migration{From: src, FromPath: path, To: dst, ToWhere: "test"}
			got, err := Migrate(ctx, m, mg)
			if want := (Migrated{Tasks: 1, NewTasks: 1, Runs: tc.runs, Imported: tc.runs}); err != nil || got != want {
				t.Fatalf("Migrate = %+v, %v; want %+v", got, err, want)
			}
			if _, err := dst.Task(ctx, "job"); err != nil {
				t.Errorf("the task did not go over: %v", err)
			}
			got, err = Migrate(ctx, m, mg)
			if want := (Migrated{Tasks: 1, Runs: tc.runs}); err != nil || got != want {
				t.Errorf("second Migrate = %+v, %v; want %+v (nothing copied twice)", got, err, want)
			}
		})
	}
}

// TestMigrateCarriesThePruneFloor: a host's prune floor (the latest slot of
// a run it pruned) goes over to the shared ledger, where no command lowers
// the task's watermark below it either: a resume --replay-paused of a pause
// that began before it gave the pruned slots back as missed there.
func TestMigrateCarriesThePruneFloor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dst := testPostgres(t)
	src, path := testLedger(t)
	reg := mustTime(t, "2026-03-01T00:00:00Z")
	if err := src.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 0 * * *", TZ: "UTC", Replay: "all",
		Argv: []string{"true"}, Source: "run", RegisteredAt: reg, UpdatedAt: reg}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		slot := reg.Add(time.Duration(i) * 24 * time.Hour)
		status := store.StatusSucceeded
		if i == 3 {
			status = store.StatusFailed
		}
		if _, err := src.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule,
			Status: status, Attempt: 1, StartedAt: slot, EndedAt: slot.Add(time.Minute), Host: "testhost"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Prune(ctx, store.PruneRequest{Before: reg.Add(30 * 24 * time.Hour), Batch: 100}); err != nil {
		t.Fatal(err)
	}
	floor := reg.Add(3 * 24 * time.Hour) // the failed slot: the latest run (day 4) is kept
	if task, err := src.Task(ctx, "job"); err != nil || !task.PrunedThrough.Equal(floor) {
		t.Fatalf("host's prune floor %v, %v; want %v", task.PrunedThrough, err, floor)
	}
	if _, err := Migrate(ctx, testMachine(path, reg), Migration{From: src, FromPath: path, To: dst, ToWhere: "test"}); err != nil {
		t.Fatal(err)
	}
	if task, err := dst.Task(ctx, "job"); err != nil || !task.PrunedThrough.Equal(floor) {
		t.Fatalf("shared ledger's prune floor %v, %v; want %v", task.PrunedThrough, err, floor)
	}
	_, got, err := dst.UnsettlePaused(ctx, "job", reg)
	if err != nil || !got.Equal(floor) {
		t.Fatalf("UnsettlePaused on the shared ledger: floor %v, %v; want %v", got, err, floor)
	}
	if task, _ := dst.Task(ctx, "job"); !task.SettledThrough.Equal(floor) {
		t.Errorf("shared ledger's watermark %v; want the floor %v", task.SettledThrough, floor)
	}
}

// TestMigrateCarriesScheduleSince: when a task's schedule took effect goes
// over to the shared ledger with it, so that a dead run of the old
// schedule found there later brings back none of the new schedule's slots
// from before the change.
func TestMigrateCarriesScheduleSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dst := testPostgres(t)
	src, path := testLedger(t)
	reg := mustTime(t, "2026-03-01T00:00:00Z")
	change := reg.Add(50*time.Hour - time.Second)
	for _, x := range []struct {
		expr    string
		settled time.Time
	}{{"0 0 * * *", reg.Add(-time.Second)}, {"0 6 * * *", change}} {
		if err := src.UpsertTask(ctx, store.Task{Name: "job", Schedule: x.expr, TZ: "UTC", Replay: "all",
			Argv: []string{"true"}, Source: "run", RegisteredAt: reg, UpdatedAt: reg, SettledThrough: x.settled}); err != nil {
			t.Fatal(err)
		}
	}
	if task, err := src.Task(ctx, "job"); err != nil || !task.ScheduleSince.Equal(change) {
		t.Fatalf("host's ScheduleSince %v, %v; want %v", task.ScheduleSince, err, change)
	}
	if _, err := Migrate(ctx, testMachine(path, reg), Migration{From: src, FromPath: path, To: dst, ToWhere: "test"}); err != nil {
		t.Fatal(err)
	}
	if task, err := dst.Task(ctx, "job"); err != nil || !task.ScheduleSince.Equal(change) {
		t.Errorf("shared ledger's ScheduleSince %v, %v; want %v", task.ScheduleSince, err, change)
	}
}
