-- catchup ledger, schema version 8: each task's prune floor.
--   pruned_through: the latest slot (unix ms) of a run prune deleted (0:
--                   none). Commands that lower the watermark (resume
--                   --replay-paused, reset-clock, a backdated registration)
--                   never lower it below this: the slots up to it may have
--                   lost the runs that settled them, so they would read as
--                   missed, and scan would replay a slot that ran or failed.
ALTER TABLE tasks ADD COLUMN pruned_through INTEGER NOT NULL DEFAULT 0;
