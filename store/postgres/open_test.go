package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
)

func TestPostgresErrorsHidePassword(t *testing.T) {
	// No server is needed: nothing listens on port 1.
	for _, dsn := range []string{
		"postgres://postgres:secret@127.0.0.1:1/test?sslmode=disable",
		"postgres://postgres@127.0.0.1:1/test?sslmode=disable&password=secret",
		"postgresql://postgres:secret@127.0.0.1:1/test?sslmode=disable&connect_timeout=2",
		"host=127.0.0.1 port=1 user=postgres password=secret dbname=test sslmode=disable",
		"postgres://postgres:secret@127.0.0.1:notaport/test",
		"postgres://postgres:secret@[::1/test",
		"postgres://postgres:secret@127.0.0.1:1/test?sslmode=bogus",
		"host=127.0.0.1 password='secret",
	} {
		t.Run(dsn, func(t *testing.T) {
			s, err := postgres.Open(t.Context(), dsn)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("error: %v", err)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error text leaks the password: %v", err)
			}
			// (A key=value string is refused by ParseLocation, without
			// the password.)
			if loc, err := store.ParseLocation(dsn); err != nil && strings.Contains(err.Error(), "secret") ||
				loc.Kind == store.Postgres && strings.Contains(loc.Redacted(), "secret") {
				t.Errorf("ParseLocation = %v (%v)", loc, err)
			}
		})
	}
	t.Run("names the ledger", func(t *testing.T) {
		_, err := postgres.Open(t.Context(), "postgres://postgres:secret@127.0.0.1:1/test?sslmode=disable")
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/test") {
			t.Errorf("error %v does not name 127.0.0.1:1/test", err)
		}
	})
}

// TestPostgresScrubTellsNoPassword: an error keeps no password, and its
// scrub gives none away: replaced wherever it appeared, a password that is
// also the user's name, the database's or the port showed as xxxxx there
// (postgres:postgres said user=xxxxx, a password "ledger" the ledger's
// name as 127.0.0.1:1/xxxxx), telling what the password is.
func TestPostgresScrubTellsNoPassword(t *testing.T) {
	for name, tc := range map[string]struct{ dsn, want string }{
		"the user's name":    {"postgres://postgres:postgres@127.0.0.1:1/app?sslmode=disable", "`user=postgres database=app`"},
		"the database's":     {"postgres://u:ledger@127.0.0.1:1/ledger?sslmode=disable", "open ledger 127.0.0.1:1/ledger:"},
		"the port":           {"postgres://u:1@127.0.0.1:1/x?sslmode=disable", "127.0.0.1:1 (127.0.0.1)"},
		"password= the same": {"postgres://u@127.0.0.1:1/app?sslmode=disable&password=u", "`user=u database=app`"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := postgres.Open(t.Context(), tc.dsn)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "xxxxx") {
				t.Errorf("error %q: want %s as it is, nothing scrubbed", err, tc.want)
			}
		})
	}
}

func TestPostgresSchemaTooNew(t *testing.T) {
	dsn := pgLedger(t)
	s := openPG(t, dsn)
	mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
	s.Close()
	admin := pgAdmin(t, dsn)
	ctx := t.Context()
	if _, err := admin.Exec(ctx, `INSERT INTO schema_version (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		t.Helper()
		var out string
		err := admin.QueryRow(ctx, `SELECT
 (SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = current_schema()::regnamespace)
 || ' versions ' || (SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_version)
 || ' runs ' || (SELECT string_agg(id || status || xmin::text, ',' ORDER BY id) FROM runs)
 || ' slots ' || (SELECT string_agg(format('%s/%s/%s/%s', task, running_id, succeeded_id, xmin), ',') FROM slots)`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := snapshot()
	s2, err := postgres.Open(ctx, dsn)
	if err == nil {
		s2.Close()
		t.Fatal("Open of a version 99 ledger succeeded")
	}
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Errorf("error %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1") && !strings.Contains(err.Error(), "localhost") {
		t.Errorf("error %q does not name the ledger", err)
	}
	if after := snapshot(); after != before {
		t.Errorf("a refused open changed the ledger:\nbefore %s\nafter  %s", before, after)
	}
}

// Hosts that start together on a new ledger all open it; it is migrated
// once.
func TestPostgresConcurrentFirstOpen(t *testing.T) {
	const procs = 8
	dsn := pgLedger(t)
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			s, err := postgres.Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	var versions []int
	rows, err := pgAdmin(t, dsn).Query(t.Context(), `SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if rows.Err() != nil || fmt.Sprint(versions) != "[1 2 3 4 5 6 7 8 9]" {
		t.Errorf("schema_version rows = %v (%v), want [1 2 3 4 5 6 7 8 9]", versions, rows.Err())
	}
}

// TestConnectErrorOneLine: a refused connection is one line (no "\n\t",
// which a terminal-safe message prints literally), and the same dial error
// of sslmode=prefer's two attempts (TLS, then plain) is said once.
func TestConnectErrorOneLine(t *testing.T) {
	_, err := postgres.Open(t.Context(), "postgres://postgres:secret@127.0.0.1:1/test")
	if err == nil {
		t.Fatal("Open succeeded")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\t") {
		t.Errorf("error is not one line: %q", msg)
	}
	if n := strings.Count(msg, "connection refused"); n != 1 {
		t.Errorf("error says the dial error %d times: %q", n, msg)
	}
	if !errors.Is(err, store.ErrLedgerUnreachable) {
		t.Errorf("error %q is not ErrLedgerUnreachable", msg)
	}
}
