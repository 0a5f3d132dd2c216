-- catchup ledger, schema version 5 (task-lifecycle): a task can be retired
-- (catchup forget, or scan when its crontab line is gone) and paused
-- (catchup pause / resume). Times in unix ms; 0: none.
--   retired_at:   when the task was retired; a retired task is not scanned
--                 nor listed as missed, and its next fire registers it anew
--   paused_at:    when the task's latest pause began (0: never paused)
--   paused_until: when that pause ends (0: until catchup resume)
ALTER TABLE tasks ADD COLUMN retired_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN paused_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN paused_until INTEGER NOT NULL DEFAULT 0;
