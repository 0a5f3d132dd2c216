-- catchup shared ledger (PostgreSQL), schema version 7: an index of each
-- task's failed runs (failed, timeout, interrupted) by when they ended, so
-- that catchup metrics reads each task's latest failure
-- (catchup_last_failure_timestamp_seconds) from one index entry, not from
-- every failed run. The condition is backend.FailedSQL word for word.
CREATE INDEX runs_task_failure_end ON runs (task, ended_at) WHERE status IN ('failed', 'timeout', 'interrupted');
