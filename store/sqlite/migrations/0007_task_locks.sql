-- catchup ledger, schema version 7: nothing changes here. (A shared
-- ledger's task lock became a row of its own, task_locks; one host's runs
-- are serialised by the task's flock.)
SELECT 1;
