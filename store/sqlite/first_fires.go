package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/catchup/catchup/store"
)

// firstFiresSQL is one host's earliest fire of each task named: for each
// task, the first of its runs in slot order that the host fired
// (runs_task_slot walked from its start, stopping at the first such run),
// and the first of its runs without a slot by their start
// (runs_task_started). A host that fired the task early costs a few index
// entries; one that never did, the task's runs.
const firstFiresSQL = `SELECT t.value, ?2,
 (SELECT r.slot FROM runs r INDEXED BY runs_task_slot WHERE r.task = t.value AND r.host = ?2
  AND r.trigger = '` + store.TriggerSchedule + `' AND r.slot IS NOT NULL ORDER BY r.slot LIMIT 1),
 (SELECT r.started_at FROM runs r WHERE r.task = t.value AND r.host = ?2
  AND r.trigger = '` + store.TriggerSchedule + `' AND r.slot IS NULL ORDER BY r.started_at LIMIT 1)
FROM json_each(?1) t`

// FirstFires implements store.Store: one statement a host (a fleet's few),
// for every task (task names are ASCII: through JSON); a host name is
// bound as it is, any bytes.
func (s *Ledger) FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error) {
	ctx = uncancelled(ctx)
	out := map[string]map[string]time.Time{}
	if len(tasks) == 0 {
		return out, nil
	}
	names, err := json.Marshal(tasks)
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		if err := s.readFirstFires(ctx, firstFiresSQL, out, string(names), h); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readFirstFires adds the rows of query to out.
func (s *Ledger) readFirstFires(ctx context.Context, query string, out map[string]map[string]time.Time, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.wrap("read ledger", err)
	}
	defer rows.Close()
	for rows.Next() {
		var task, host string
		var slot, started sql.NullInt64
		if err := rows.Scan(&task, &host, &slot, &started); err != nil {
			return s.wrap("read ledger", err)
		}
		var bySlot, byStart time.Time
		if slot.Valid {
			bySlot = time.Unix(slot.Int64, 0).UTC()
		}
		if started.Valid {
			byStart = fromMS(started.Int64)
		}
		if at, ok := store.EarlierFire(bySlot, byStart); ok {
			if out[task] == nil {
				out[task] = map[string]time.Time{}
			}
			out[task][host] = at
		}
	}
	return s.wrap("read ledger", rows.Err())
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
