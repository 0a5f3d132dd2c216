package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/store"
)

// copiedElsewhere returns the indexes in runs of those the ledger holds
// already from another origin: the same run (task, slot, host, pid and
// start) copied by an earlier migrate of the same ledger through another
// path (a symlink), of a copy of it (a catchup backup), or under another
// --host. Copied again, each was a second record of its slot's run. The
// runs of origin itself are not looked for: an import converges on those
// (importConflictSQL). Each lookup goes through an index: a slot's runs
// by (task, slot), a run with no slot by (task, started_at).
func copiedElsewhere(ctx context.Context, tx pgx.Tx, origin string, runs []store.Run) (map[int]bool, error) {
	var idx []int32
	var tasks, hosts []string
	var slots, starts []time.Time
	var pids []int64
	for i, r := range runs { // each as stored (insertArgs)
		idx, tasks, hosts, pids = append(idx, int32(i)), append(tasks, r.Task), append(hosts, dbText(r.Host)), append(pids, int64(r.PID))
		slot, _ := dbSlot(r.Slot).(time.Time) // zero: no slot
		slots, starts = append(slots, slot), append(starts, dbTime(r.StartedAt))
	}
	copied := map[int]bool{}
	if len(runs) == 0 {
		return copied, nil
	}
	rows, err := tx.Query(ctx, `SELECT k.i FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::bigint[])
 AS k(i, task, slot, started, host, pid)
WHERE EXISTS (SELECT 1 FROM runs r WHERE r.task = k.task AND r.slot = k.slot AND r.started_at = k.started
  AND r.host = k.host AND r.pid = k.pid AND r.origin IS DISTINCT FROM $7 AND k.slot <> $8)
 OR EXISTS (SELECT 1 FROM runs r WHERE k.slot = $8 AND r.task = k.task AND r.slot IS NULL AND r.started_at = k.started
  AND r.host = k.host AND r.pid = k.pid AND r.origin IS DISTINCT FROM $7)`,
		idx, tasks, slots, starts, hosts, pids, dbText(origin), time.Time{}) // origin as stored
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var i int32
		if err := rows.Scan(&i); err != nil {
			return nil, err
		}
		copied[int(i)] = true
	}
	return copied, rows.Err()
}
