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
			if want := (Migrated{Tasks: 1, Runs: tc.runs, Imported: tc.runs}); err != nil || got != want {
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
