-- catchup shared ledger (PostgreSQL), schema version 5 (task-lifecycle): a
-- task can be retired (catchup forget, or scan when its crontab line is
-- gone) and paused (catchup pause / resume). NULL: none.
--   retired_at:   when the task was retired; a retired task is not scanned
--                 nor listed as missed, and its next fire registers it anew
--   paused_at:    when the task's latest pause began (NULL: never paused)
--   paused_until: when that pause ends (NULL: until catchup resume)
ALTER TABLE tasks ADD COLUMN retired_at timestamptz;
ALTER TABLE tasks ADD COLUMN paused_at timestamptz;
ALTER TABLE tasks ADD COLUMN paused_until timestamptz;
