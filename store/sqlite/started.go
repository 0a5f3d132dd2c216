package sqlite

import (
	"context"
	"time"
)

// SetStarted implements store.Store.
func (s *Ledger) SetStarted(ctx context.Context, id int64, at time.Time) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET started_at = ? WHERE id = ? AND status = 'running'`, ms(at), id)
	return s.wrap("write ledger", err)
}
