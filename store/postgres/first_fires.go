package postgres

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// firstFiresSQL is each host's earliest fire of each task named.
const firstFiresSQL = `SELECT r.task, r.host, MIN(COALESCE(r.slot, r.started_at))
FROM runs r WHERE r.task = ANY($1::text[]) AND r.trigger = '` + store.TriggerSchedule + `'
GROUP BY r.task, r.host`

// FirstFires implements store.Store: one statement for every task.
func (p *Ledger) FirstFires(ctx context.Context, tasks []string) (map[string]map[string]time.Time, error) {
	out := map[string]map[string]time.Time{}
	if len(tasks) == 0 {
		return out, nil
	}
	rows, err := p.pool.Query(ctx, firstFiresSQL, tasks) // task names are ASCII
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	for rows.Next() {
		var task, host string
		var at *time.Time
		if err := rows.Scan(&task, &host, &at); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		host = fromText(host)
		if out[task] == nil {
			out[task] = map[string]time.Time{}
		}
		out[task][host] = fromDB(at)
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
