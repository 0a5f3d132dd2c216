-- catchup shared ledger (PostgreSQL), schema version 4 (slots-causes): the
-- per-task catch-up window, expired slots with their reason, and every boot
-- of every host catchup saw.
ALTER TABLE tasks ADD COLUMN max_age_ms bigint NOT NULL DEFAULT 0; -- 0: scan's default
-- A reason code: why a slot expired (max-age, max-replays, policy), or why a
-- fire was recorded late (ledger-unreachable).
ALTER TABLE runs ADD COLUMN reason text NOT NULL DEFAULT '';

-- One row per span of a boot of a host that catchup saw: a boot whose boot
-- time moved (the wall clock was stepped) starts a new span.
CREATE TABLE boots (
  id         bigserial PRIMARY KEY,
  host       text NOT NULL,
  boot_id    text NOT NULL,
  boot_time  timestamptz,          -- NULL: unknown
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL
);
CREATE INDEX boots_host ON boots (host, boot_id, id);
