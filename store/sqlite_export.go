package store

import (
	"context"
	"time"
)

// ExportRuns returns up to limit runs with an id above afterID, with every
// column including the tails, in ascending id order: page through a ledger
// by passing the last id returned. limit <= 0 means 1000.
func (s *SQLite) ExportRuns(ctx context.Context, afterID int64, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 1000
	}
	return s.scanRuns(ctx, (*nullRun).destFull, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id > ? ORDER BY r.id LIMIT ?`, afterID, limit)
}

// PrunedSlot is a slot whose succeeded run was pruned: it stays done.
type PrunedSlot struct {
	Task string
	Slot time.Time
}

// ExportPrunedSlots returns the slots that stay done although prune
// deleted their succeeded run, for `catchup migrate`.
func (s *SQLite) ExportPrunedSlots(ctx context.Context) ([]PrunedSlot, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT task, slot FROM pruned_slots ORDER BY task, slot`)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []PrunedSlot
	for rows.Next() {
		var p PrunedSlot
		var slot int64
		if err := rows.Scan(&p.Task, &slot); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		p.Slot = time.Unix(slot, 0).UTC()
		out = append(out, p)
	}
	return out, s.wrap("read ledger", rows.Err())
}
