package sqlite

import (
	"context"
	"time"

	"github.com/catchup/catchup/store/internal/backend"
)

// SetStarted implements store.Store.
func (s *Ledger) SetStarted(ctx context.Context, id int64, at time.Time) (bool, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return false, err
	}
	var n int64
	err := s.write(ctx, func(ctx context.Context, e readWriter) error {
		res, err := e.ExecContext(ctx, `UPDATE runs SET started_at = ?, reason = `+backend.RetryStartsSQL+` WHERE id = ? AND status = 'running'`, ms(at), id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, s.wrap("write ledger", err)
}
