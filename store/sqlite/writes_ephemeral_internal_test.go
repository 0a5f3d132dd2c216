package sqlite

import (
	"database/sql"
	"testing"
)

// The writes every run makes (its claim's insert, its outcome) must not
// build a temporary b-tree: SQLite builds one to test a value against an
// IN list of more than two constants, and it did so twice for each
// outcome (the partial index runs_task_failure_end's condition, on the
// row before and after), about 8 us each of a replayed slot's ledger work.
func TestRunWritesBuildNoTempTable(t *testing.T) {
	db := schemaDB(t)
	writes := map[string]struct {
		query string
		args  []any
	}{
		"a claim's insert": {insertRunSQL, []any{"t", 60, "schedule", "running", 1, nil, 0, 1, nil, "h", 1, "b", nil, nil, "", nil, "", ""}},
		"an outcome":       {finishSQL, []any{"failed", 1, 0, 2, nil, nil, "", "", 1}},
	}
	for name, w := range writes {
		t.Run(name, func(t *testing.T) {
			n := 0
			for _, op := range opcodes(t, db, w.query, w.args) {
				if op == "OpenEphemeral" {
					n++
				}
			}
			if n > 0 {
				t.Errorf("%s builds %d temporary b-trees (OpenEphemeral): an IN list of more than two constants?", name, n)
			}
		})
	}
}

// opcodes returns the opcodes of query's program (EXPLAIN).
func opcodes(t *testing.T, db *sql.DB, query string, args []any) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var ops []string
	for rows.Next() {
		var addr, p1, p2, p3, p5 int
		var op string
		var p4, comment sql.NullString
		if err := rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 {
		t.Fatalf("no program for %q", query)
	}
	return ops
}
