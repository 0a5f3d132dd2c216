-- catchup ledger, schema version 10: the partial index runs_task_failure_end
-- of version 7, made again with its condition written as three comparisons
-- (failedSQL), not as an IN list. SQLite tests a value against an IN list
-- of more than two constants by building a temporary b-tree, and a partial
-- index's condition is tested at every write of a row: once at each run's
-- insert, twice at each outcome. Same rows, same order; the query that
-- reads it (lastFailuresSQL) has the new condition word for word.
DROP INDEX IF EXISTS runs_task_failure_end;
CREATE INDEX runs_task_failure_end ON runs(task, ended_at) WHERE (status = 'failed' OR status = 'timeout' OR status = 'interrupted');
