package store

import "context"

// ExportRuns returns up to limit runs with an id above afterID, with every
// column including the tails, in ascending id order: page through a ledger
// by passing the last id returned. limit <= 0 means 1000.
func (s *SQLite) ExportRuns(ctx context.Context, afterID int64, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id > ? ORDER BY r.id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var n nullRun
		if err := rows.Scan(n.destFull()...); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, *n.run())
	}
	return out, s.wrap("read ledger", rows.Err())
}
