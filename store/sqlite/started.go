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
	return s.wrap("write ledger", s.write(ctx, func(ctx context.Context, e readWriter) error {
		_, err := e.ExecContext(ctx, `UPDATE runs SET started_at = ? WHERE id = ? AND status = 'running'`, ms(at), id)
		return err
	}))
}
