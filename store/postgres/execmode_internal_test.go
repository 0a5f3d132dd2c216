package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRunsPickTheMode: a statement's first run in the process goes in the
// exec mode (one round trip, no prepare), its later runs prepared; with
// the DSN's own mode (no runs), its arguments go as they are.
func TestRunsPickTheMode(t *testing.T) {
	r := &runs{}
	if got := r.args("SELECT $1", []any{1}); len(got) != 2 || got[0] != pgx.QueryExecModeExec || got[1] != 1 {
		t.Errorf("first run: %v", got)
	}
	for range 2 {
		if got := r.args("SELECT $1", []any{1}); len(got) != 2 || got[0] != pgx.QueryExecModeCacheStatement {
			t.Errorf("later run: %v", got)
		}
	}
	if got := r.args("SELECT 2", nil); len(got) != 1 || got[0] != pgx.QueryExecModeExec {
		t.Errorf("another statement's first run: %v", got)
	}
	var none *runs
	if got := none.args("SELECT $1", []any{1}); len(got) != 1 || got[0] != 1 {
		t.Errorf("the DSN's mode: %v", got)
	}
	for dsn, want := range map[string]bool{
		"postgres://u:pw@h/db?sslmode=disable":                                         false,
		"postgres://u:pw@h/db?default_query_exec_mode=cache_statement":                 true,
		"postgres://u:pw@h/db?sslmode=disable&default_query_exec_mode=simple_protocol": true,
	} {
		if got := setsExecMode(dsn); got != want {
			t.Errorf("setsExecMode(%q) = %v", dsn, got)
		}
	}
	// A batch that could not be sent says why, from each of its calls.
	boom := errors.New("boom")
	f := failedBatch{boom}
	if _, err := f.Exec(); err != boom {
		t.Error(err)
	}
	rows, err := f.Query()
	if err != boom || rows.Next() || rows.Err() != boom {
		t.Error(err)
	}
	rows.Close()
	if err := f.QueryRow().Scan(); err != boom || f.Close() != boom {
		t.Error(err)
	}
}
