package backend

// NotAnOlderSlotSQL is the condition, on a runs row of the task the SQL
// expression task names, that it is not a record of a slot older than the
// latest slot among the records kept picks (an expiry's too: for Tasks's,
// ls's LAST SLOT). The task's latest run is the latest record (by id) of
// its newest slot, or one without a slot recorded after it: a record of an
// older slot recorded later, a backfill or a --force rerun here, a copy
// catchup migrate brought in from another ledger (with a higher id than a
// newer slot's run, whatever order they ran in), shows an outcome the newer
// slot's run superseded, and would make a ledger and its migrated copy
// disagree on which run is the latest (before, SQLite took the latest by
// id, PostgreSQL passed copies of older slots only). The subquery walks
// the (task, slot) index back from the latest slot; with task a parameter
// it does not depend on the row.
func NotAnOlderSlotSQL(task, kept string) string {
	return `(slot IS NULL OR slot >= COALESCE(` + latestSlotSQL(task, kept) + `, slot))`
}

// latestSlotSQL is the latest slot a record of the task the SQL expression
// task names holds, among the records kept picks; NULL when none does.
func latestSlotSQL(task, kept string) string {
	return `(SELECT n.slot FROM runs n WHERE n.task = ` + task + ` AND n.slot IS NOT NULL AND ` + kept + ` ORDER BY n.slot DESC LIMIT 1)`
}

// pruneSlotHeldSQL is, for prune's cut (a row k per task), the id of the
// record holding the latest slot among the records kept picks (the latest
// such record), when a record newer than the run shown (shown: its id,
// NULL for none) is of an older slot, so hidden (NotAnOlderSlotSQL):
// deleted, it would let that record show. NULL otherwise.
func pruneSlotHeldSQL(kept, shown string) string {
	latest := latestSlotSQL("k.task", kept)
	return `CASE WHEN EXISTS (SELECT 1 FROM runs c WHERE c.task = k.task AND ` + kept +
		` AND c.slot < ` + latest + ` AND c.id > COALESCE(` + shown + `, 0))` +
		` THEN (SELECT x.id FROM runs x WHERE x.task = k.task AND x.slot IS NOT NULL AND ` + kept +
		` ORDER BY x.slot DESC, x.id DESC LIMIT 1) END`
}

// NotAnOlderCopySQL is the condition, on a runs row of the task the SQL
// expression task names, that it is not a copy catchup migrate brought in
// (origin set: PostgreSQL's runs only) that started before the latest
// start among the records kept picks that could be the latest (those
// without a slot, and those of the latest slot). The latest is the latest
// record by id (of the newest slot, or without a slot), and ids follow the
// starts in the ledger that recorded them; a copy's id follows the
// migrate instead: a host's run of 10:00 copied after its switch to the
// shared ledger, where it ran at 11:00, has the higher id, and showed as
// the task's latest, the 11:00 outcome hidden (a false alert, or a
// failure unseen); so did its fire of a slot it reran there (--force)
// after the switch. The subquery does not depend on the row, and is read
// only for a copy.
func NotAnOlderCopySQL(task, kept string) string {
	return `(origin IS NULL OR started_at >= COALESCE(` + latestStartSQL(task, kept) + `, started_at))`
}

// latestStartSQL is the latest start of a record of the task the SQL
// expression task names that the records kept picks and that could be the
// latest (one without a slot, through the (task, started_at) index of
// those, or one of the latest slot); NULL when none.
func latestStartSQL(task, kept string) string {
	return `GREATEST((SELECT n.started_at FROM runs n WHERE n.task = ` + task + ` AND n.slot IS NULL AND ` + kept +
		` ORDER BY n.started_at DESC LIMIT 1), (SELECT MAX(n.started_at) FROM runs n WHERE n.task = ` + task +
		` AND n.slot >= ` + latestSlotSQL(task, kept) + ` AND ` + kept + `))`
}
