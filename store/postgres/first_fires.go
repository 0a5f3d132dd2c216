package postgres

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// firstFiresSQL is each host's earliest fire of each task named: for each
// (task, host), the first of the task's runs in slot order that the host
// fired (the (task, slot, id) index walked from its start, stopping at
// the first such run), and the first of its runs without a slot by their
// start. A host that fired the task early costs a few index entries; one
// that never did, the task's runs.
const firstFiresSQL = `SELECT t.task, h.host,
 (SELECT r.slot FROM runs r WHERE r.task = t.task AND r.host = h.host AND r.trigger = '` + store.TriggerSchedule + `'
  AND r.slot IS NOT NULL ORDER BY r.slot, r.id LIMIT 1),
 (SELECT r.started_at FROM runs r WHERE r.task = t.task AND r.host = h.host AND r.trigger = '` + store.TriggerSchedule + `'
  AND r.slot IS NULL ORDER BY r.started_at, r.id LIMIT 1)
FROM unnest($1::text[]) t(task) CROSS JOIN unnest($2::text[]) h(host)`

// FirstFires implements store.Store: one statement for every task.
func (p *Ledger) FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error) {
	out := map[string]map[string]time.Time{}
	if len(tasks) == 0 || len(hosts) == 0 {
		return out, nil
	}
	stored := make([]string, len(hosts))
	for i, h := range hosts {
		stored[i] = dbText(h)
	}
	rows, err := p.pool.Query(ctx, firstFiresSQL, tasks, stored) // task names are ASCII
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	for rows.Next() {
		var task, host string
		var slot, started *time.Time
		if err := rows.Scan(&task, &host, &slot, &started); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		if at, ok := store.EarlierFire(fromDB(slot), fromDB(started)); ok {
			if out[task] == nil {
				out[task] = map[string]time.Time{}
			}
			out[task][fromText(host)] = at
		}
	}
	return out, p.wrap("read ledger", rows.Err())
}

// BootHosts implements store.Store.
func (p *Ledger) BootHosts(ctx context.Context) ([]string, error) {
	rows, err := p.pool.Query(ctx, `SELECT DISTINCT host FROM boots ORDER BY host`)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, fromText(h))
	}
	return out, p.wrap("read ledger", rows.Err())
}
