package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// plannedQueries are the PostgreSQL ledger's queries, from the same
// constants the code uses, with arguments to plan them with.
var plannedQueries = map[string]struct {
	query string
	args  []any
	// noSort: the ORDER BY must come from the index (the query has a
	// LIMIT, or must not grow with the number of runs).
	noSort bool
	// indexOnly: the runs are read from an index alone.
	indexOnly bool
	// incrementalSort: the only sort is an incremental one.
	incrementalSort bool
}{
	"Tasks":                      {query: tasksSQL(), noSort: true},
	"SlotRuns with slot":         {query: slotRunsSQL, args: []any{"task-007", planT0, planT0.Add(time.Hour)}},
	"SlotRuns slotless":          {query: slotlessRunsSQL, args: []any{"task-007", planT0, planT0.Add(time.Hour)}},
	"History by task":            {query: `SELECT ` + runColumnsLight + ` FROM runs r WHERE true AND r.task = $1 ORDER BY r.id DESC LIMIT $2`, args: []any{"task-007", 20}, noSort: true},
	"History by task and status": {query: `SELECT ` + runColumnsLight + ` FROM runs r WHERE true AND r.task = $1 AND r.status = $2 ORDER BY r.id DESC LIMIT $3`, args: []any{"task-007", "failed", 20}, noSort: true},
	"History":                    {query: `SELECT ` + runColumnsLight + ` FROM runs r WHERE true ORDER BY r.id DESC LIMIT $1`, args: []any{20}, noSort: true},
	"Running":                    {query: runningSQL, noSort: true},
	"LatestSlot":                 {query: `SELECT MAX(slot) FROM runs WHERE task = $1`, args: []any{"task-007"}},
	"LatestRan":                  {query: latestRanSQL(), args: []any{"task-007"}, noSort: true},
	"LatestListedSlot":           {query: latestListedSlotSQL, args: []any{"task-007"}, noSort: true},
	"EarliestRun":                {query: `SELECT started_at FROM runs WHERE task = $1 ORDER BY id LIMIT 1`, args: []any{"task-007"}, noSort: true},
	"Run":                        {query: `SELECT ` + runColumnsFull + ` FROM runs r WHERE r.id = $1`, args: []any{int64(5)}},
	"Task":                       {query: `SELECT ` + taskColumns + ` FROM tasks t WHERE t.name = $1`, args: []any{"task-007"}},
	"Claim":                      {query: claimSQL, args: []any{"task-007", planT0, false}},
	"Claim holder":               {query: holderSQL, args: []any{"task-007", planT0, false}},
	"Lock slot of run":           {query: lockSlotOfRunSQL, args: []any{int64(5)}},
	"Sync slot of run":           {query: syncSlotOfRunSQL, args: []any{int64(5)}},
	"Sync slot":                  {query: syncSlotSQL, args: []any{"task-007", planT0}},
	"Import run": {query: insertRunSQL + ` ON CONFLICT (origin, origin_id) WHERE origin IS NOT NULL DO NOTHING`,
		args: insertArgs(0, store.Run{Task: "task-007", Slot: planT0, Status: store.StatusSucceeded, StartedAt: planT0, ID: 3}, "host-a")},
	"Heartbeat":               {query: `UPDATE runs SET heartbeat_at = $2 WHERE id = $1 AND status = 'running'`, args: []any{int64(5), planT0}},
	"StatusCounts":            {query: statusCountsSQL, indexOnly: true},
	"StatusCount":             {query: statusCountSQL, args: []any{"task-007", "expired"}, indexOnly: true},
	"Lock task":               {query: lockTaskSQL, args: []any{"task-007"}},
	"Lock task of run":        {query: lockTaskOfRunSQL, args: []any{int64(5)}},
	"SetSettled":              {query: setSettledSQL, args: []any{"task-007", planT0.Add(time.Hour)}},
	"Interrupt":               {query: interruptSQL, args: []any{int64(5), planT0, "reason"}},
	"LastCheckpoint":          {query: lastCheckpointSQL, args: []any{"task-007", planT0}, noSort: true},
	"Prune (dry run)":         {query: pruneCountSQL(), args: []any{4, planT0.Add(time.Hour), "{}", "[]", "{}", "{}"}},
	"Prune (dry run, adding)": {query: pruneCountSQL(), args: []any{4, planT0.Add(time.Hour), `{"task-07": 2, "task-09": 7}`, "[]", `{"task-07": 1, "task-09": 4}`, "{}"}},
	"Prune":                   {query: pruneDeleteSQL(), args: []any{4, planT0.Add(time.Hour), "{}", "[]", "{}", "{}", "task-07", 0, 2000}},
	"Prune, keeps none":       {query: pruneDeleteSQL(), args: []any{0, planT0.Add(time.Hour), "{}", "[]", "{}", "{}", "task-07", 0, 2000}},
	"Prune, leaving tasks":    {query: pruneDeleteSQL(), args: []any{4, planT0.Add(time.Hour), "{}", `["task-07", "task-09"]`, "{}", "{}", "task-07", 0, 2000}},
	"Prune, owed a slot":      {query: pruneDeleteSQL(), args: []any{4, planT0.Add(time.Hour), "{}", "[]", "{}", `{"task-07": 1000}`, "task-07", 0, 2000}},
	"Prune, its tasks":        {query: pruneTasksSQL, args: []any{`["task-07"]`}},
	"Expired slot":            {query: expiredSlotSQL, args: []any{"task-007", planT0}},
	"LatestSlots":             {query: latestSlotsSQL},
	"LatestListedSlots":       {query: latestListedSlotsSQL, args: []any{[]string{"task-007", "task-009"}}, noSort: true},
	"LatestRans":              {query: latestRansSQL(), args: []any{[]string{"task-007", "task-009"}}, noSort: true},
	"LastFires":               {query: lastFiresSQL, noSort: true},
	"StatusCountByTask":       {query: statusCountByTaskSQL, args: []any{"expired"}, indexOnly: true},
	"BootsOf":                 {query: bootsOfSQL, args: []any{[]string{"host-a", "host-b"}}},
	"FirstFires":              {query: firstFiresSQL, args: []any{[]string{"task-007", "task-009"}, []string{"host-1", "host-2"}}},
	"LastFailures":            {query: lastFailuresSQL, noSort: true},
	// Each range's runs are sorted on their own (an incremental sort,
	// the ranges' order presorted), never the whole result at once.
	"SlotRunsOf": {query: slotRunsOfSQL, args: slotRunsOfArgs([]store.SlotRange{
		{Task: "task-007", From: planT0, To: planT0.Add(time.Hour)},
		{Task: "task-009", From: planT0, To: planT0.Add(time.Hour)}}, time.Minute), incrementalSort: true},
	"SetProgress": {query: `UPDATE runs SET progress = $2,
 checkpoint = CASE WHEN $3::text = '' THEN checkpoint ELSE $3::text END
WHERE id = $1 AND status = 'running'`, args: []any{int64(5), 50, "note"}},
}

var planT0 = time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)

// The planner must be able to serve every query from an index. Sequential
// scans are disabled so that the plan shows whether an index can serve the
// query, whatever the planner would prefer on this small table.
func TestPostgresQueryPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresLedger(t)
	p, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	conn := storetest.PostgresAdmin(t, dsn) // in the ledger's schema, through the DSN's options
	// 200 tasks with 100 runs each, every third slotless, a few running.
	for _, q := range []string{
		`INSERT INTO tasks (name, registered_at, updated_at)
 SELECT format('task-%s', lpad(i::text, 3, '0')), $1, $1 FROM generate_series(0, 199) i`,
		`INSERT INTO runs (task, slot, trigger, status, started_at)
 SELECT format('task-%s', lpad(i::text, 3, '0')),
  CASE WHEN j % 3 <> 0 THEN $1::timestamptz + j * interval '1 minute' END, 'schedule',
  CASE WHEN j = 99 AND i % 10 = 0 THEN 'running' WHEN j % 2 = 0 THEN 'failed' ELSE 'succeeded' END,
  $1::timestamptz + j * interval '1 minute'
 FROM generate_series(0, 99) j, generate_series(0, 199) i ORDER BY j, i`,
		`INSERT INTO slots (task, slot, succeeded_id)
 SELECT task, slot, max(id) FROM runs WHERE slot IS NOT NULL AND $1::timestamptz IS NOT NULL GROUP BY task, slot`,
	} {
		if _, err := conn.Exec(ctx, q, planT0); err != nil {
			t.Fatal(err)
		}
	}
	// VACUUM too, as autovacuum would: the visibility map is what makes an
	// index-only scan worth it to the planner.
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for name, pq := range plannedQueries {
		t.Run(name, func(t *testing.T) {
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				t.Fatal(err)
			}
			// The query must run as it stands (a stale copy fails here);
			// writes are rolled back.
			if _, err := tx.Exec(ctx, `SAVEPOINT plan`); err != nil {
				t.Fatal(err)
			}
			rows, err := tx.Query(ctx, pq.query, pq.args...)
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT plan`); err != nil {
				t.Fatal(err)
			}
			rows, err = tx.Query(ctx, `EXPLAIN `+pq.query, pq.args...)
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			var plan []string
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, line)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			t.Logf("plan:\n%s", text)
			usesIndex := false
			for _, line := range plan {
				if strings.Contains(line, "Index Scan") || strings.Contains(line, "Index Only Scan") ||
					strings.Contains(line, "Bitmap Index Scan") || strings.Contains(line, "Conflict Arbiter Indexes") {
					usesIndex = true
				}
				if strings.Contains(line, "Seq Scan on runs") || strings.Contains(line, "Seq Scan on slots") {
					t.Errorf("full scan %q in plan:\n%s", strings.TrimSpace(line), text)
				}
				if pq.noSort && strings.Contains(line, "Sort") {
					t.Errorf("sort %q not served by an index in plan:\n%s", strings.TrimSpace(line), text)
				}
				if op := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "->")); pq.incrementalSort && strings.Contains(op, "Sort  (") && !strings.HasPrefix(op, "Incremental Sort") {
					t.Errorf("sort %q of the whole result in plan:\n%s", op, text)
				}
			}
			if !usesIndex && !strings.HasPrefix(plan[0], "Insert") {
				t.Errorf("no index used in plan:\n%s", text)
			}
			if pq.indexOnly && (!strings.Contains(text, "Index Only Scan") || strings.Contains(text, "Index Scan using")) {
				t.Errorf("not an index-only plan:\n%s", text)
			}
		})
	}
}
