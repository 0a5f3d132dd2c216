package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
	_ "modernc.org/sqlite"
)

// The queries below are copies of the ones in this package, built from the
// same column constants. If a query changes there, change it here.
var plannedQueries = map[string]struct {
	query string
	args  []any
	// scanOK lists "SCAN" lines that are fine (the tasks table is listed in
	// full; a partial index holds only what is asked for).
	scanOK []string
	// noTempSort: the ORDER BY must come from the index (the query has a
	// LIMIT, or must not grow with the number of runs).
	noTempSort bool
	// indexOnly: the runs are read from a covering index alone.
	indexOnly bool
	// index, if set, is the index the plan must read.
	index string
}{
	"Tasks": {
		query: `SELECT ` + taskColumns + `, ` + runColumnsLight + `
FROM tasks t LEFT JOIN runs r ON r.id = (SELECT MAX(id) FROM runs WHERE task = t.name)
ORDER BY t.name`,
		scanOK:     []string{"SCAN t"},
		noTempSort: true,
	},
	"SlotRuns with slot": {
		query: `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot BETWEEN ? AND ? ORDER BY r.slot, r.id`,
		args: []any{"backup", 1, 2},
	},
	"SlotRuns slotless": {
		query: `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot IS NULL AND r.started_at BETWEEN ? AND ? ORDER BY r.started_at, r.id`,
		args: []any{"backup", 1, 2},
	},
	"LatestRan": {
		query:      latestRanSQL(),
		args:       []any{"backup"},
		noTempSort: true,
	},
	"History by task": {
		query:      `SELECT ` + runColumnsLight + ` FROM runs r WHERE 1=1 AND r.task = ? ORDER BY r.id DESC LIMIT ?`,
		args:       []any{"backup", 20},
		noTempSort: true,
	},
	"History by task and status": {
		query:      `SELECT ` + runColumnsLight + ` FROM runs r WHERE 1=1 AND r.task = ? AND r.status = ? ORDER BY r.id DESC LIMIT ?`,
		args:       []any{"backup", "failed", 20},
		noTempSort: true,
	},
	"Claim check": {
		query: `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot = ? AND r.status IN ('running', 'succeeded') ORDER BY r.id DESC LIMIT 1`,
		args:       []any{"backup", 1},
		noTempSort: true,
	},
	"Claim check forced": {
		query: `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot = ? AND r.status IN ('running') ORDER BY r.id DESC LIMIT 1`,
		args:       []any{"backup", 1},
		noTempSort: true,
	},
	"Running": {
		query:  `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.status = 'running' ORDER BY r.id`,
		scanOK: []string{"SCAN r USING INDEX runs_running"},
	},
	"LatestSlot": {
		query: `SELECT MAX(slot) FROM runs WHERE task = ?`,
		args:  []any{"backup"},
	},
	"LatestListedSlot": {
		query:      latestListedSlotSQL,
		args:       []any{"backup"},
		noTempSort: true,
	},
	"EarliestRun": {
		query:      `SELECT started_at FROM runs WHERE task = ? ORDER BY id LIMIT 1`,
		args:       []any{"backup"},
		noTempSort: true,
	},
	"Run": {
		query: `SELECT ` + runColumnsFull + ` FROM runs r WHERE r.id = ?`,
		args:  []any{1},
	},
	"Task": {
		query: `SELECT ` + taskColumns + ` FROM tasks t WHERE t.name = ?`,
		args:  []any{"backup"},
	},
	"StatusCounts": {
		query:     statusCountsSQL,
		scanOK:    []string{"SCAN runs USING COVERING INDEX runs_task_status"},
		indexOnly: true,
	},
	"StatusCount": {query: statusCountSQL, args: []any{"task-07", "expired"}, indexOnly: true},
	"SetSettled":  {query: setSettledSQL, args: []any{"task-07", int64(2e12)}},
	"Interrupt lowers the watermark": {
		query: lowerSettledSQL, args: []any{"task-07", int64(1e9)},
	},
	"Claim: slot touched": {
		query: slotTouchedSQL, args: []any{"task-07", 1},
		scanOK: []string{"SCAN CONSTANT ROW"}, // the outer SELECT has no table
	},
	"Claim pruned slot": {
		query: `SELECT run_id FROM pruned_slots WHERE task = ? AND slot = ?`, args: []any{"task-07", 1},
	},
	"SetProgress": {
		query: `UPDATE runs SET progress = ?, checkpoint = CASE WHEN ? = '' THEN checkpoint ELSE ? END
WHERE id = ? AND status = 'running'`,
		args: []any{5, "", "", 3},
	},
	"LastCheckpoint": {
		query: lastCheckpointSQL, args: []any{"task-07", 1}, noTempSort: true,
	},
	// Pruning reads the task names from an index, then each task's runs
	// below its cut through the (task, id) index. The records a dry run
	// counts as added come from a json_each table (a few rows); a task
	// with some finds its cut among its newest runs (w, at most ?1+1 rows
	// read from the index).
	"Prune": {
		query:  pruneCountSQL(),
		args:   []any{4, int64(2e12), "{}", "[]", "{}", "{}"},
		scanOK: pruneScanOK,
	},
	"Prune (dry run, adding)": {
		query:  pruneCountSQL(),
		args:   []any{4, int64(2e12), `{"task-07": 2, "task-09": 7}`, "[]", `{"task-07": 1, "task-09": 4}`, "{}"},
		scanOK: pruneScanOK,
	},
	"Prune, leaving tasks": {
		query:  pruneCountSQL(),
		args:   []any{4, int64(2e12), "{}", `["task-07", "task-09"]`, "{}", "{}"},
		scanOK: pruneScanOK,
	},
	// A batch reads one task's runs after a cursor, through the (task,
	// id) index; the task names are read one index seek each.
	"Prune, a batch": {
		query:  pruneDeleteSQL(),
		args:   []any{4, int64(2e12), "{}", "[]", "{}", "{}", "task-07", 0, 2000},
		scanOK: append(pruneScanOK, "SCAN CONSTANT ROW", "SCAN cut", "SCAN a", "SCAN ar"),
	},
	"Prune, a batch of a task owed a slot": {
		query:  pruneDeleteSQL(),
		args:   []any{4, int64(2e12), "{}", "[]", "{}", `{"task-07": 1000}`, "task-07", 0, 2000},
		scanOK: append(pruneScanOK, "SCAN CONSTANT ROW", "SCAN cut", "SCAN a", "SCAN ar"),
	},
	"Prune, its tasks": {
		query: pruneTasksSQL, args: []any{`["task-07"]`},
		scanOK: []string{"SCAN k", "SCAN json_each VIRTUAL TABLE", "SCAN CONSTANT ROW"},
	},
	"Expired slot": {
		query: expiredSlotSQL, args: []any{"task-07", 1},
	},
	// The batched reads: the tasks table (or the names given) in full,
	// then each task's read through the index its per-task read uses.
	"LatestSlots":       {query: latestSlotsSQL, scanOK: []string{"SCAN t"}},
	"LatestListedSlots": {query: latestListedSlotsSQL, args: []any{`["task-07", "task-09"]`}, scanOK: batchScanOK, noTempSort: true},
	"LatestRans":        {query: latestRansSQL(), args: []any{`["task-07", "task-09"]`}, scanOK: batchScanOK, noTempSort: true},
	"FirstFires":        {query: firstFiresSQL, args: []any{`["task-07", "task-09"]`, "host-1"}, scanOK: []string{"SCAN t VIRTUAL TABLE"}, noTempSort: true},
	"LastFires":         {query: lastFiresSQL, scanOK: []string{"SCAN t"}, noTempSort: true},
	"StatusCountByTask": {query: statusCountByTaskSQL, args: []any{"expired"}, scanOK: []string{"SCAN t"}},
	// Each task's latest failure from its end of runs_task_failure_end,
	// a cut retry's row passed over (backend.NotRetryCutSQL).
	"LastFailures": {query: lastFailuresSQL, scanOK: []string{"SCAN t"}, index: "runs_task_failure_end"},
	// A scheduled fire's claim: the task's running records, never its
	// slots before the claimed one (runs_task_slot), which grow with it.
	"Older running": {query: olderRunningSQL, args: []any{"task-07", 1}, scanOK: []string{"SCAN CONSTANT ROW"}, index: "runs_task_status"},
}

var batchScanOK = []string{"SCAN q VIRTUAL TABLE"}

// (o: the owed slots of a few tasks, a json_each table too.)
var pruneScanOK = []string{"SCAN runs USING COVERING INDEX", "SCAN k", "SCAN cut", "SCAN json_each VIRTUAL TABLE", "SCAN o VIRTUAL TABLE", "SCAN (subquery-", "SCAN w"}

// schemaDB makes a new ledger and returns a plain connection to it, to
// read the plans SQLite makes for the ledger's statements; both are closed
// when the test ends.
func schemaDB(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestQueryPlansUseIndexes(t *testing.T) {
	db := schemaDB(t)
	// Some data, so that the planner does not plan for an empty table.
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		task := fmt.Sprintf("task-%02d", i)
		if err := upsertTask(t.Context(), tx, store.Task{Name: task}); err != nil {
			t.Fatal(err)
		}
		for j := range 20 {
			r := store.Run{Task: task, Trigger: store.TriggerSchedule, Status: store.StatusSucceeded, StartedAt: fromMS(int64(1e12 + j*60000))}
			if j%3 != 0 {
				r.Slot = r.StartedAt
			}
			if _, err := insertRun(t.Context(), tx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	for name, q := range plannedQueries {
		t.Run(name, func(t *testing.T) {
			// The query must run as it stands (a stale copy fails here).
			rows, err := db.QueryContext(t.Context(), q.query, q.args...)
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			rows.Close()

			plan := explain(t, db, q.query, q.args)
			text := strings.Join(plan, "\n")
			t.Logf("plan:\n%s", text)
			usesIndex := false
			for _, line := range plan {
				if strings.Contains(line, "USING INDEX") || strings.Contains(line, "USING COVERING INDEX") ||
					strings.Contains(line, "USING INTEGER PRIMARY KEY") || strings.Contains(line, "USING ROWID") ||
					strings.Contains(line, "USING PRIMARY KEY") {
					usesIndex = true
				}
				if strings.HasPrefix(line, "SCAN") && !hasPrefixIn(line, q.scanOK) {
					t.Errorf("full scan %q in plan:\n%s", line, text)
				}
				if q.noTempSort && strings.Contains(line, "TEMP B-TREE") {
					t.Errorf("sort %q not served by an index in plan:\n%s", line, text)
				}
			}
			if !usesIndex {
				t.Errorf("no index used in plan:\n%s", text)
			}
			if q.index != "" && !strings.Contains(text, "INDEX "+q.index+" ") {
				t.Errorf("the plan does not read %s:\n%s", q.index, text)
			}
			if q.indexOnly && (!strings.Contains(text, "COVERING INDEX") || strings.Contains(text, "USING INDEX")) {
				t.Errorf("not an index-only plan:\n%s", text)
			}
		})
	}
}

// explain returns the EXPLAIN QUERY PLAN details, one per line.
func explain(t *testing.T, db *sql.DB, query string, args []any) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

func hasPrefixIn(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
