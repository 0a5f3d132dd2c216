-- catchup shared ledger (PostgreSQL), schema version 2: task options for
-- replays, the settled watermark, run progress and checkpoints, per-status
-- counts, retention.
ALTER TABLE tasks
  ADD COLUMN timeout_ms      bigint NOT NULL DEFAULT 0,
  ADD COLUMN kill_after_ms   bigint NOT NULL DEFAULT 0,
  ADD COLUMN no_capture      boolean NOT NULL DEFAULT false,
  ADD COLUMN notify_cmd      text NOT NULL DEFAULT '',
  -- Every slot at or before it is settled; NULL: none.
  ADD COLUMN settled_through timestamptz;

ALTER TABLE runs
  ADD COLUMN progress   integer CHECK (progress BETWEEN 0 AND 100), -- NULL: never reported
  ADD COLUMN checkpoint text NOT NULL DEFAULT '';

-- Per-task status counts (an index-only scan), History by task and status,
-- and the running or interrupted runs of a task (SetSettled).
CREATE INDEX runs_task_status ON runs (task, status, id);

-- Pruning may delete a slot's succeeded run: slots.succeeded_id then keeps
-- its id, and the slot stays done (see the sync statements).
