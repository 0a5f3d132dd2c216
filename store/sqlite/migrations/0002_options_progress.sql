-- catchup ledger, schema version 2: task options for replays, the settled
-- watermark, run progress and checkpoints, per-status counts, retention.
ALTER TABLE tasks ADD COLUMN timeout_ms      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN kill_after_ms   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN no_capture      INTEGER NOT NULL DEFAULT 0; -- 0 or 1
ALTER TABLE tasks ADD COLUMN notify_cmd      TEXT NOT NULL DEFAULT '';
-- Every slot at or before it is settled (unix ms; 0: none).
ALTER TABLE tasks ADD COLUMN settled_through INTEGER NOT NULL DEFAULT 0;

ALTER TABLE runs ADD COLUMN progress   INTEGER;  -- percent; NULL: never reported
ALTER TABLE runs ADD COLUMN checkpoint TEXT NOT NULL DEFAULT '';

-- Per-task status counts (an index-only scan), History by task and status,
-- and the running or interrupted runs of a task (SetSettled). The rowid (run
-- id) is the index's implicit last column.
CREATE INDEX runs_task_status ON runs(task, status);

-- Slots whose succeeded run was pruned: they stay done. run_id is the
-- pruned run's id (the slot's holder).
CREATE TABLE pruned_slots (
  task   TEXT NOT NULL,
  slot   INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  PRIMARY KEY (task, slot)
) STRICT, WITHOUT ROWID;
