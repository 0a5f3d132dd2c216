package backend

// NotAnOlderCopySQL is the condition, on a runs row of the task the SQL
// expression task names, that it is not a record copied in from another
// ledger (catchup migrate) of a slot older than the latest slot among the
// records kept picks (an expiry's too: for Tasks's, ls's LAST SLOT).
// copied is the backend's condition, on the row, that it is a copy; empty
// for a ledger that takes none (SQLite), where no row is one. Copied in
// after this ledger's runs, such a record has a higher id than a newer
// slot's run: as the task's latest it would show an outcome that run
// superseded (a failure the recipes' alert fires on), as an older expiry
// would (NotAnOlderExpirySQL). A copy of the latest slot, or of none, is
// still the latest by id, and so is a record of this ledger (a backfill of
// an older slot). The subquery is read only for a copy; with task a
// parameter it does not depend on the row.
func NotAnOlderCopySQL(task, kept, copied string) string {
	if copied == "" {
		return `1 = 1`
	}
	return `(NOT (` + copied + `) OR slot IS NULL OR slot >= COALESCE(` + latestSlotSQL(task, kept) + `, slot))`
}

// latestSlotSQL is the latest slot a record of the task the SQL expression
// task names holds, among the records kept picks; NULL when none does.
func latestSlotSQL(task, kept string) string {
	return `(SELECT n.slot FROM runs n WHERE n.task = ` + task + ` AND n.slot IS NOT NULL AND ` + kept + ` ORDER BY n.slot DESC LIMIT 1)`
}

// pruneCopyHeldSQL is, for prune's cut (a row k per task), the id of the
// record holding the latest slot among the records kept picks (the latest
// such record), when a copy newer than the run shown (shown: its id, NULL
// for none) is of an older slot, so hidden (NotAnOlderCopySQL): deleted,
// it would let that copy show. NULL otherwise, and always on a backend
// that takes no copies (copied empty).
func pruneCopyHeldSQL(kept, copied, shown string) string {
	if copied == "" {
		return `CAST(NULL AS bigint)`
	}
	latest := latestSlotSQL("k.task", kept)
	return `CASE WHEN EXISTS (SELECT 1 FROM runs c WHERE c.task = k.task AND (` + copied + `) AND ` + kept +
		` AND c.slot < ` + latest + ` AND c.id > COALESCE(` + shown + `, 0))` +
		` THEN (SELECT x.id FROM runs x WHERE x.task = k.task AND x.slot IS NOT NULL AND ` + kept +
		` ORDER BY x.slot DESC, x.id DESC LIMIT 1) END`
}
