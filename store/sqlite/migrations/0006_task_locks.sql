-- catchup ledger, schema version 6: nothing changes here. (A shared
-- ledger's task lock became a row of its own, task_locks; one host's runs
-- are serialised by the task's flock.)
SELECT 1;
