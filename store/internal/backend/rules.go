package backend

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// EncodeArgv is a task's command as stored: a JSON array, [] for none.
// Each argument goes through EncodeText: JSON strings are UTF-8, arguments
// are bytes.
func EncodeArgv(argv []string) (string, error) {
	if argv == nil {
		return "[]", nil
	}
	enc := make([]string, len(argv))
	for i, a := range argv {
		enc[i] = EncodeText(a)
	}
	b, err := json.Marshal(enc)
	return string(b), err
}

// DecodeArgv reads the stored command of task back.
func DecodeArgv(task, stored string) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(stored), &argv); err != nil {
		return nil, fmt.Errorf("task %s: bad argv in ledger: %w", task, err)
	}
	for i, a := range argv {
		argv[i] = DecodeText(a)
	}
	return argv, nil
}

// ReplayPolicy is a task's replay policy as stored: "all" when unset.
func ReplayPolicy(replay string) string {
	if replay == "" {
		return "all"
	}
	return replay
}

// FirstSeen is when a task first seen through run r counts as registered:
// the run's slot, or its start when that is earlier (or it has no slot), so
// that the slot is covered by the missed-slot rule.
func FirstSeen(r store.Run) time.Time {
	if r.Slot.IsZero() || r.StartedAt.Before(r.Slot) {
		return r.StartedAt
	}
	return r.Slot
}

// CeilSecond is t in Unix seconds, rounded up: slots are whole seconds, so
// the first slot at or after t is at this second.
func CeilSecond(t time.Time) int64 {
	if t.Nanosecond() != 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// CheckPercent refuses a progress outside 0-100.
func CheckPercent(id int64, percent int) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("run %d: progress %d%% out of range 0-100", id, percent)
	}
	return nil
}

// RowScanner is what *sql.Rows and pgx.Rows share.
type RowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// CollectCounts reads (task, status, count) rows into task -> status -> n.
func CollectCounts(rows RowScanner) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for rows.Next() {
		var task, status string
		var n int64
		if err := rows.Scan(&task, &status, &n); err != nil {
			return nil, err
		}
		if out[task] == nil {
			out[task] = map[string]int64{}
		}
		out[task][status] = n
	}
	return out, rows.Err()
}

// NotADuplicateSQL is the condition, on a runs row, that it is not the
// record of a fire that ran nothing because another run had its slot
// (skipped, exit 0), nor a paused record resume --replay-paused gave back
// (it settles nothing any more), nor a replay's skipped record without an
// exit code, which ran nothing (a slot folded into a coalesced replay,
// recorded after that replay's claim, must not hide the replay's outcome;
// so too a replay --on-busy skip settled, an older ledger's policy skip),
// nor a retry cut during its delay, which ran nothing (its failed attempt's
// outcome stands): what store.TaskSummary.Latest leaves out.
const NotADuplicateSQL = `(status <> 'skipped' OR exit_code IS NULL OR exit_code <> 0) AND (status <> 'paused' OR reason <> 'replay-paused')` +
	` AND (status <> 'skipped' OR exit_code IS NOT NULL OR trigger <> 'replay') AND (status <> 'interrupted' OR reason <> 'retry-cut')`

// NotAnOlderExpirySQL is the condition, on a runs row of the task the SQL
// expression task names, that it is not an expiry of a slot older than one
// a record that is not an expiry holds, among the records kept picks (the
// same as the query's own: NotADuplicateSQL, or RanSQL once a pause is
// over). Such an expiry (prune, a scan, forget giving up the past after a
// newer fire) settles the past: as the task's latest run it would hide
// that newer fire's failure from ls, catchup_last_run_status and the
// recipes' alert. An expiry of the latest slot still is the task's latest
// word. The subquery walks the (task, slot) index back from the latest
// slot and is read only for an expiry; with task a parameter it does not
// depend on the row, and runs once.
func NotAnOlderExpirySQL(task, kept string) string {
	return `(status <> 'expired' OR slot >= COALESCE(` + latestHeldSlotSQL(task, kept) + `, slot))`
}

// ShowLatest makes each task's Latest in out the run Tasks shows: one read
// as the latest by NotADuplicateSQL and NotAnOlderSlotSQL alone that is an
// expiry may be of a slot older than a
// run's (NotAnOlderExpirySQL), so the task's latest is
// read again by read, which applies the full rule. A task whose latest
// record is not an expiry costs nothing. On an error, out is not to be used.
func ShowLatest(out []store.TaskSummary, read func(task string) (*store.Run, error)) error {
	for i, ts := range out {
		if ts.Latest == nil || ts.Latest.Status != store.StatusExpired {
			continue
		}
		r, err := read(ts.Task.Name)
		if err != nil {
			return err
		}
		out[i].Latest = r
	}
	return nil
}

// latestHeldSlotSQL is the latest slot a record of the task the SQL
// expression task names holds that is not an expiry, among the records
// kept picks; NULL when none does.
func latestHeldSlotSQL(task, kept string) string {
	return `(SELECT n.slot FROM runs n WHERE n.task = ` + task + ` AND n.slot IS NOT NULL AND n.status <> 'expired' AND ` +
		kept + ` ORDER BY n.slot DESC LIMIT 1)`
}

// PruneShownSQL is, for prune's cut (a row k per task), the ids of the
// runs that decide what ls shows of task k.task among the records kept
// picks (NotADuplicateSQL: Tasks; RanSQL: LatestRan, once a pause is
// over), which prune never deletes: the run shown (the latest, but an
// expiry of a slot older than a run's: NotAnOlderExpirySQL, or a record of
// a slot older than the latest: NotAnOlderSlotSQL), and, when an expiry
// newer than it is hidden so, the run that holds the latest slot
// (latestHeldSlotSQL), when a record of an older slot newer than it is, the
// record that holds the latest slot (slotHeld): deleted, it would let that
// expiry or record show. Each batch of a prune reads them again, and finds the same.
//
// In a dry run the records Adding counts are not in the ledger; a real
// prune adds the paused ones first, then the expired ones in slot order
// (adding_ran ar: their count n, the last expired slot, last, and the last
// paused one, lastp). The run shown is one of them (none of the ledger's
// kept for it) when a paused one is added (pausedAdded, for a count that
// takes paused records: Tasks's), or the last expiry is of a slot no older
// than the latest a run holds. The run holding the latest slot is kept when
// the added expiries are hidden by it, or, with nothing added shown, an
// expiry of the ledger is; it is an added paused one when its slot is no
// older than that (for Tasks's count). The records of older slots are in the ledger, older
// than every record added: none is hidden when one of those is shown.
// copies says the ledger may hold migrate's copies (PostgreSQL): a copy
// that started before another record that could be shown is not shown
// either (NotAnOlderCopySQL), and the record that started last is.
func PruneShownSQL(kept, pausedAdded string, copies bool) (shown, held, slotHeld string) {
	latest := latestHeldSlotSQL("k.task", kept)
	lastShown := `ar.last IS NOT NULL AND ar.last >= COALESCE(` + latest + `, ar.last)`
	notOlder := NotAnOlderSlotSQL("k.task", kept)
	if copies {
		notOlder += ` AND ` + NotAnOlderCopySQL("k.task", kept)
	}
	tableShown := `(SELECT x.id FROM runs x WHERE x.task = k.task AND ` + kept + ` AND ` +
		NotAnOlderExpirySQL("k.task", kept) + ` AND ` + notOlder + ` ORDER BY x.id DESC LIMIT 1)`
	hidden := `EXISTS (SELECT 1 FROM runs e WHERE e.task = k.task AND e.status = 'expired' AND ` + kept +
		` AND e.slot < ` + latest + ` AND e.id > COALESCE(` + tableShown + `, 0))`
	addedShown, heldAdded, tableHidden := lastShown, "false", hidden
	if pausedAdded != "" {
		addedShown = pausedAdded + ` OR ` + lastShown
		heldAdded = `ar.lastp IS NOT NULL AND ar.lastp >= COALESCE(` + latest + `, ar.lastp)`
		tableHidden = `NOT (` + pausedAdded + `) AND ` + hidden
	}
	shown = `CASE WHEN ` + addedShown + ` THEN NULL ELSE ` + tableShown + ` END`
	held = `CASE WHEN (` + heldAdded + `) OR (` + lastShown + `) OR NOT (ar.last IS NOT NULL OR ` + tableHidden + `) THEN NULL` +
		` ELSE (SELECT x.id FROM runs x WHERE x.task = k.task AND x.slot IS NOT NULL AND x.status <> 'expired' AND ` + kept +
		` ORDER BY x.slot DESC, x.id DESC LIMIT 1) END`
	slotHeld = `CASE WHEN ` + addedShown + ` THEN NULL ELSE ` + pruneSlotHeldSQL(kept, tableShown) + ` END`
	return shown, held, slotHeld
}

// PrunePausedAddedSQL is, in prune's cut, whether a dry run counts
// paused records added for task k.task (Adding counts more than AddingRan).
const PrunePausedAddedSQL = `COALESCE(a.n, 0) > COALESCE(ar.n, 0)`

// PruneLastSlotSQL is, for prune's cut (a row k per task), the id of the
// record holding ls's LAST SLOT (store.Store.LatestListedSlot: the latest
// slot among the records Tasks picks from, an expiry's too; the latest
// such record when several hold it), which prune never deletes: the run ls
// shows may be of an older slot (a --force rerun or a backfill of an old
// slot after a newer fire, an expiry of the newest slot before it), and
// deleting the other would move LAST SLOT back. In a dry run, NULL when a
// record a real prune adds (adding_ran ar: its last expired slot, last, or
// last paused one, lastp) holds a slot no older: added after every run, it
// then holds LAST SLOT itself.
func PruneLastSlotSQL() string {
	latest := `(SELECT n.slot FROM runs n WHERE n.task = k.task AND n.slot IS NOT NULL AND ` + NotADuplicateSQL +
		` ORDER BY n.slot DESC LIMIT 1)`
	return `CASE WHEN (ar.last IS NOT NULL AND ar.last >= COALESCE(` + latest + `, ar.last))
      OR (ar.lastp IS NOT NULL AND ar.lastp >= COALESCE(` + latest + `, ar.lastp)) THEN NULL
    ELSE (SELECT x.id FROM runs x WHERE x.task = k.task AND x.slot IS NOT NULL AND ` + NotADuplicateSQL +
		` ORDER BY x.slot DESC, x.id DESC LIMIT 1) END`
}

// PruneKeptSQL is the cut's columns of the runs PruneShownSQL and
// PruneLastSlotSQL name, for Tasks's count and LatestRan's: shown, held,
// copy_held (the record holding the latest slot, pruneSlotHeldSQL),
// ran_shown, ran_held, ran_copy_held, last_slot. (Past a
// pause ls's LAST SLOT is the slot of ran_shown, or, when that run has
// none, last_slot's.) copies: as for PruneShownSQL.
func PruneKeptSQL(copies bool) string {
	shown, held, copyHeld := PruneShownSQL(NotADuplicateSQL, PrunePausedAddedSQL, copies)
	ranShown, ranHeld, ranCopyHeld := PruneShownSQL(RanSQL, "", copies)
	return shown + ` AS shown, ` + held + ` AS held, ` + copyHeld + ` AS copy_held,
    ` + ranShown + ` AS ran_shown, ` + ranHeld + ` AS ran_held, ` + ranCopyHeld + ` AS ran_copy_held,
    ` + PruneLastSlotSQL() + ` AS last_slot`
}

// PruneNotKeptSQL is doomed's condition that run r is none of those
// PruneKeptSQL names.
const PruneNotKeptSQL = `r.id NOT IN (COALESCE(cut.shown, 0), COALESCE(cut.held, 0), COALESCE(cut.copy_held, 0),` +
	` COALESCE(cut.ran_shown, 0), COALESCE(cut.ran_held, 0), COALESCE(cut.ran_copy_held, 0), COALESCE(cut.last_slot, 0))`

// SettledSlotSQL is the condition, on a runs row aliased o, that it gives
// its slot an outcome (what the readers' missed-slot rule counts settled):
// a success, a failure or timeout, an expiry, a skip with no exit code (a
// slot folded into a coalesced replay, an --on-busy skip, an older
// ledger's policy skip), a paused record that resume --replay-paused did
// not give back. A lock skip (exit 75) or a duplicate fire (exit 0)
// settles nothing. The watermark passes a slot whose dead run such a
// record follows (SetSettled).
const SettledSlotSQL = `(o.status IN ('succeeded', 'failed', 'timeout', 'expired')` +
	` OR (o.status = 'skipped' AND o.exit_code IS NULL) OR (o.status = 'paused' AND o.reason <> 'replay-paused'))`

// FailedSQL is the condition, on a runs row, that the run failed
// (store.FailureStatuses). PostgreSQL's partial index runs_task_failure_end
// has this condition word for word, so that a query with it can use that
// index; SQLite's has it as three comparisons (sqlite.failedSQL).
const FailedSQL = `status IN ('failed', 'timeout', 'interrupted')`

// RanSQL is NotADuplicateSQL without the paused records either: the runs
// store.Store.LatestRan picks from.
const RanSQL = NotADuplicateSQL + ` AND status <> 'paused'`

// DoneSQL is RanSQL without the expired records either: the runs that ran,
// among which prune counts --keep a third time, so that the expired records
// a long outage leaves (prune itself records them) never push out the runs
// that ran before it.
const DoneSQL = RanSQL + ` AND status <> 'expired'`
