package sqlite

import (
	"context"
	"encoding/json"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// pruneWatermarks moves the watermarks up to the cut (a task owed a slot
// before it, up to the second before that slot), in one immediate
// transaction: slots before the cut lose the runs that settled them
// (failed ones too), so the missed-slot rule must never take a pruned slot
// for a missed one. It leaves those of the tasks left whole (req.Leave),
// and of those of req.Of it refuses (returned, by name), their rows read
// in the transaction.
func (s *Ledger) pruneWatermarks(ctx context.Context, req store.PruneRequest) (map[string]error, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, s.wrap("prune ledger", err)
	}
	defer tx.Rollback()
	refused := map[string]error{}
	if checked := backend.PruneChecked(req); len(checked) > 0 {
		names, err := json.Marshal(checked)
		if err != nil {
			return nil, err
		}
		rows, err := tx.QueryContext(ctx, `SELECT name, registered_at, retired_at FROM tasks
WHERE name IN (SELECT value FROM json_each(?))`, string(names))
		if err != nil {
			return nil, s.wrap("read ledger", err)
		}
		found := map[string][2]int64{}
		for rows.Next() {
			var name string
			var at, retired int64
			if err := rows.Scan(&name, &at, &retired); err != nil {
				rows.Close()
				return nil, s.wrap("read ledger", err)
			}
			found[name] = [2]int64{at, retired}
		}
		if err := rows.Close(); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		if err := rows.Err(); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		for _, task := range checked {
			row, ok := found[task]
			if err := backend.PruneRefuses(req, task, ok, fromMS(row[0]), fromMS(row[1])); err != nil {
				refused[task] = err
			}
		}
	}
	// A task owed a slot before the cut (req.Owed) moves up to the second
	// before that slot, no further.
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET settled_through = min(?1, coalesce(
  (SELECT o.value * 1000 - 1000 FROM json_each(?3) o WHERE o.key = tasks.name), ?1))
WHERE settled_through < min(?1, coalesce((SELECT o.value * 1000 - 1000 FROM json_each(?3) o WHERE o.key = tasks.name), ?1))
  AND name NOT IN (SELECT value FROM json_each(?2))`,
		ms(req.Before), backend.PruneLeave(backend.PruneLeaving(req, refused)), backend.PruneOwed(req)); err != nil {
		return nil, s.wrap("prune ledger", err)
	}
	return refused, s.wrap("prune ledger", tx.Commit())
}
