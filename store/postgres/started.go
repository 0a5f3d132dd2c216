package postgres

import (
	"context"
	"time"

	"github.com/catchup/catchup/store/internal/backend"
)

// SetStarted implements store.Store.
func (p *Ledger) SetStarted(ctx context.Context, id int64, at time.Time) (bool, error) {
	tag, err := p.pool.Exec(ctx, `UPDATE runs SET started_at = $2, heartbeat_at = $2,
 reason = `+backend.RetryStartsSQL+` WHERE id = $1 AND status = 'running'`, id, dbTime(at))
	p.letGo()
	return err == nil && tag.RowsAffected() > 0, p.wrap("write ledger", err)
}
