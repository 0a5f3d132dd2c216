-- catchup shared ledger (PostgreSQL), schema version 10: nothing changes
-- here. (On SQLite the partial index runs_task_failure_end is made again
-- with its condition as three comparisons instead of an IN list, which
-- SQLite tested with a temporary b-tree at every write of a run.)
SELECT 1;
