-- catchup shared ledger (PostgreSQL), schema version 3: what a fire that
-- finds its task still running does (replay: leave the slot to scan; skip:
-- settle it skipped; wait: wait for the lock; empty: replay).
ALTER TABLE tasks ADD COLUMN on_busy text NOT NULL DEFAULT '';
