package postgres

import (
	"context"
	"time"
)

// SetStarted implements store.Store.
func (p *Ledger) SetStarted(ctx context.Context, id int64, at time.Time) error {
	_, err := p.pool.Exec(ctx, `UPDATE runs SET started_at = $2, heartbeat_at = $2 WHERE id = $1 AND status = 'running'`, id, dbTime(at))
	p.letGo()
	return p.wrap("write ledger", err)
}
