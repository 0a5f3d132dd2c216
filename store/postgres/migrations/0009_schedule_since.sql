-- catchup shared ledger (PostgreSQL), schema version 9: when each task's
-- schedule took effect.
--   schedule_since: the watermark the latest change of the task's schedule
--                   or zone set (NULL: none known). Its current schedule's
--                   slots at or before it are never missed, but for a slot
--                   whose run died (found dead after the change, it lowered
--                   the watermark below the change): the slots of the new
--                   schedule from before the change never were.
ALTER TABLE tasks ADD COLUMN schedule_since timestamptz;
