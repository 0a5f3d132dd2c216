package store

import "context"

// ExportRuns returns up to limit runs with an id above afterID, with every
// column including the tails, in ascending id order: page through a ledger
// by passing the last id returned. limit <= 0 means 1000.
func (s *SQLite) ExportRuns(ctx context.Context, afterID int64, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 1000
	}
	return s.scanRuns(ctx, (*nullRun).destFull, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id > ? ORDER BY r.id LIMIT ?`, afterID, limit)
}
