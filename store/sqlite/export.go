package sqlite

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// ExportRuns returns up to limit runs with an id above afterID, with every
// column including the tails, in ascending id order: page through a ledger
// by passing the last id returned. limit <= 0 means 1000.
func (s *Ledger) ExportRuns(ctx context.Context, afterID int64, limit int) ([]store.Run, error) {
	ctx = uncancelled(ctx)
	if limit <= 0 {
		limit = 1000
	}
	return s.scanRuns(ctx, (*nullRun).destFull, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id > ? ORDER BY r.id LIMIT ?`, afterID, limit)
}

// ExportPrunedSlots returns the slots that stay done although prune
// deleted their succeeded run, for `catchup migrate`.
func (s *Ledger) ExportPrunedSlots(ctx context.Context) ([]store.PrunedSlot, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT task, slot FROM pruned_slots ORDER BY task, slot`)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.PrunedSlot
	for rows.Next() {
		var p store.PrunedSlot
		var slot int64
		if err := rows.Scan(&p.Task, &slot); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		p.Slot = time.Unix(slot, 0).UTC()
		out = append(out, p)
	}
	return out, s.wrap("read ledger", rows.Err())
}
