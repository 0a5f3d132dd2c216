-- catchup ledger, schema version 4 (slots-causes): the per-task catch-up
-- window, expired slots with their reason, and every boot catchup saw.
ALTER TABLE tasks ADD COLUMN max_age_ms INTEGER NOT NULL DEFAULT 0; -- 0: scan's default
-- A reason code: why a slot expired (max-age, max-replays, policy), or why a
-- fire was recorded late (ledger-unreachable).
ALTER TABLE runs ADD COLUMN reason TEXT NOT NULL DEFAULT '';

-- One row per span of a boot of a host that catchup saw: a boot whose boot
-- time moved (the wall clock was stepped) starts a new span. Times in unix
-- ms; boot_time 0: unknown.
CREATE TABLE boots (
  id         INTEGER PRIMARY KEY,
  host       TEXT NOT NULL,
  boot_id    TEXT NOT NULL,
  boot_time  INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL
) STRICT;
CREATE INDEX boots_host ON boots(host, boot_id, id);
