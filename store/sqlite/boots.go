package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// The statements of a boot sighting; a claim prepares them (see
// Ledger.prepare), as a scan sees the boot at every slot it replays.
const (
	latestBootSQL = `SELECT id, boot_time FROM boots WHERE host = ? AND boot_id = ? ORDER BY id DESC LIMIT 1`
	extendBootSQL = `UPDATE boots SET first_seen = MIN(first_seen, ?2), last_seen = MAX(last_seen, ?2),
 boot_time = CASE WHEN boot_time = 0 THEN ?3 ELSE boot_time END WHERE id = ?1`
	insertBootSQL = `INSERT INTO boots (host, boot_id, boot_time, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)`
)

// bootSQL is what seeBoot runs at every sighting but a boot's first (its
// insert runs unprepared, once per boot span).
var bootSQL = []string{latestBootSQL, extendBootSQL}

// seeBoot records a sighting of a boot (see Store.SeeBoot) with e, inside
// the caller's transaction.
func seeBoot(ctx context.Context, e interface {
	execer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, b store.Boot) error {
	var id, bt int64
	err := e.QueryRowContext(ctx, latestBootSQL, b.Host, b.ID).Scan(&id, &bt)
	switch {
	case err == nil && (store.Boot{ID: b.ID, Time: fromMS(bt)}).SameSpan(b.ID, b.Time):
		_, err = e.ExecContext(ctx, extendBootSQL, id, ms(b.LastSeen), ms(b.Time))
		return err
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = e.ExecContext(ctx, insertBootSQL, b.Host, b.ID, ms(b.Time), ms(b.LastSeen), ms(b.LastSeen))
	return err
}

// SeeBoot implements store.Store.
func (s *Ledger) SeeBoot(ctx context.Context, b store.Boot) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	if err := seeBoot(ctx, tx, b); err != nil {
		return s.wrap("write ledger", err)
	}
	return s.wrap("write ledger", tx.Commit())
}

// Boots implements store.Store.
func (s *Ledger) Boots(ctx context.Context, host string) ([]store.Boot, error) {
	ctx = uncancelled(ctx)
	return s.queryBoots(ctx, `SELECT host, boot_id, boot_time, first_seen, last_seen FROM boots
WHERE host = ? ORDER BY id`, host)
}

// queryBoots reads the boot spans a query selects (host, boot_id,
// boot_time, first_seen, last_seen).
func (s *Ledger) queryBoots(ctx context.Context, query string, args ...any) ([]store.Boot, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.Boot
	for rows.Next() {
		var b store.Boot
		var bt, first, last int64
		if err := rows.Scan(&b.Host, &b.ID, &bt, &first, &last); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		b.Time, b.FirstSeen, b.LastSeen = fromMS(bt), fromMS(first), fromMS(last)
		out = append(out, b)
	}
	return out, s.wrap("read ledger", rows.Err())
}

// expiredSlotSQL counts a slot's expired records and the runs that hold it
// (running, succeeded: see store.Store.AddRuns), through the (task, slot)
// index (+status: not the (task, status) one, which reads every expiry of
// the task).
const expiredSlotSQL = `SELECT count(*) FROM runs WHERE task = ? AND slot = ? AND +status IN ('expired', 'running', 'succeeded')`

// pausedSlotSQL counts a slot's paused records that settle it (not given
// back: see store.Store.AddRuns), through the (task, slot) index.
const pausedSlotSQL = `SELECT count(*) FROM runs WHERE task = ? AND slot = ? AND +status = 'paused'
 AND COALESCE(reason, '') <> '` + store.ReasonReplayPaused + `'`

// AddRuns implements store.Store. An expired record of a slot recorded
// expired already, or held by a run, is left out (id 0); so is a paused
// record of a slot recorded paused already.
func (s *Ledger) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	return s.AddRunsOf(ctx, store.Of{}, runs)
}

// AddRunsOf implements store.Store: the task's registration and
// retirement are read in the transaction (immediate: no purge nor forget
// commits between the read and the inserts).
func (s *Ledger) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	ctx = uncancelled(ctx)
	if len(runs) == 0 {
		return nil, nil
	}
	if err := s.unmoved(); err != nil {
		return nil, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	if !of.Registered.IsZero() {
		var at, retired int64
		err := tx.QueryRowContext(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = ?`, runs[0].Task).Scan(&at, &retired)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, store.ErrGone)
		case err != nil:
			return nil, s.wrap("read ledger", err)
		}
		if err := of.Refuses(fromMS(at), fromMS(retired)); err != nil {
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, err)
		}
	}
	stmt, err := tx.PrepareContext(ctx, insertRunSQL)
	if err != nil {
		return nil, s.wrap("write ledger", err)
	}
	defer stmt.Close()
	ids := make([]int64, len(runs))
	for i, r := range runs {
		if q := onceSQL(r); q != "" {
			// The transaction is immediate: no one else records between
			// this check and the insert (nor does an earlier record of
			// runs escape it: it is in).
			var had int
			if err := tx.QueryRowContext(ctx, q, r.Task, r.Slot.Unix()).Scan(&had); err != nil {
				return nil, s.wrap("read ledger", err)
			}
			if had > 0 {
				continue // recorded expired (paused) already (another scan, a prune): id 0
			}
		}
		if ids[i], err = insertRun(ctx, stmtExecer{stmt}, r); err != nil {
			return nil, s.wrap("write ledger", err)
		}
	}
	return ids, s.wrap("write ledger", tx.Commit())
}

// onceSQL is the count that leaves r out when not zero: expiredSlotSQL
// for an expired record, pausedSlotSQL for a paused one (with a slot);
// "" for any other record, always added.
func onceSQL(r store.Run) string {
	switch {
	case r.Slot.IsZero():
		return ""
	case r.Status == store.StatusExpired:
		return expiredSlotSQL
	case r.Status == store.StatusPaused:
		return pausedSlotSQL
	}
	return ""
}

// stmtExecer runs a prepared insert as an execer of that one statement.
type stmtExecer struct{ stmt *sql.Stmt }

func (e stmtExecer) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return e.stmt.ExecContext(ctx, args...)
}

// ExpiredCounts implements store.Store.
func (s *Ledger) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT task, reason, count(*) FROM runs WHERE status = 'expired' GROUP BY task, reason`)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	out, err := backend.CollectCounts(rows)
	return out, s.wrap("read ledger", err)
}

// ExportBoots returns every boot span of every host, for `catchup migrate`.
func (s *Ledger) ExportBoots(ctx context.Context) ([]store.Boot, error) {
	ctx = uncancelled(ctx)
	return s.queryBoots(ctx, `SELECT host, boot_id, boot_time, first_seen, last_seen FROM boots ORDER BY id`)
}
