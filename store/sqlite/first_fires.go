package sqlite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/catchup/catchup/store"
)

// firstFiresSQL is each host's earliest fire of each task named (a run
// without a slot by its start, in milliseconds as slots are not).
const firstFiresSQL = `SELECT r.task, r.host, MIN(CASE WHEN r.slot IS NULL THEN r.started_at ELSE r.slot * 1000 END)
FROM json_each(?) q JOIN runs r ON r.task = q.value WHERE r.trigger = '` + store.TriggerSchedule + `'
GROUP BY r.task, r.host`

// FirstFires implements store.Store: the task's runs, through the (task,
// ...) indexes (task names are ASCII: through JSON).
func (s *Ledger) FirstFires(ctx context.Context, tasks []string) (map[string]map[string]time.Time, error) {
	ctx = uncancelled(ctx)
	out := map[string]map[string]time.Time{}
	if len(tasks) == 0 {
		return out, nil
	}
	names, err := json.Marshal(tasks)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, firstFiresSQL, string(names))
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	for rows.Next() {
		var task, host string
		var at int64
		if err := rows.Scan(&task, &host, &at); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		if out[task] == nil {
			out[task] = map[string]time.Time{}
		}
		out[task][host] = fromMS(at)
	}
	return out, s.wrap("read ledger", rows.Err())
}

// BootHosts implements store.Store: the (host, ...) index's distinct keys.
func (s *Ledger) BootHosts(ctx context.Context) ([]string, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT host FROM boots ORDER BY host`)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, h)
	}
	return out, s.wrap("read ledger", rows.Err())
}
