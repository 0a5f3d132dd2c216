-- catchup shared ledger (PostgreSQL), schema version 1.
-- Times are timestamptz (UTC, millisecond precision as written by catchup);
-- a time catchup does not know is NULL, except in NOT NULL columns where it
-- is the Unix epoch (as in the SQLite ledger).
CREATE TABLE tasks (
  name           text PRIMARY KEY,
  schedule       text NOT NULL DEFAULT '',
  tz             text NOT NULL DEFAULT '',
  replay         text NOT NULL DEFAULT 'all',
  argv           text NOT NULL DEFAULT '[]', -- JSON array of strings
  dir            text NOT NULL DEFAULT '',
  shell          text NOT NULL DEFAULT '',
  source         text NOT NULL DEFAULT '',
  retries        integer NOT NULL DEFAULT 0,
  retry_delay_ms bigint NOT NULL DEFAULT 60000,
  registered_at  timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE runs (
  id           bigserial PRIMARY KEY,
  task         text NOT NULL,
  slot         timestamptz,        -- NULL when the run stands for no slot
  trigger      text NOT NULL,
  status       text NOT NULL,
  attempt      integer NOT NULL DEFAULT 1,
  exit_code    integer,
  signal       integer NOT NULL DEFAULT 0,
  started_at   timestamptz NOT NULL,
  ended_at     timestamptz,
  host         text NOT NULL DEFAULT '',
  pid          integer NOT NULL DEFAULT 0,
  boot_id      text NOT NULL DEFAULT '',
  stdout_tail  bytea,
  stderr_tail  bytea,
  error        text NOT NULL DEFAULT '',
  heartbeat_at timestamptz,        -- last sign of life of a running run
  origin       text,               -- ledger an imported run came from (catchup migrate)
  origin_id    bigint              -- its id in that ledger
);

-- A task's runs of a slot range, in slot order (SlotRuns, LatestSlot, and
-- recomputing a slot's holders).
CREATE INDEX runs_task_slot ON runs (task, slot, id);
-- Latest run per task (ls), per-task history, a task's earliest run.
CREATE INDEX runs_task_id ON runs (task, id);
-- Slotless runs near a tick.
CREATE INDEX runs_task_started ON runs (task, started_at, id) WHERE slot IS NULL;
-- Interrupted-run detection reads only running records.
CREATE INDEX runs_running ON runs (id) WHERE status = 'running';
-- An imported run is imported once.
CREATE UNIQUE INDEX runs_origin ON runs (origin, origin_id) WHERE origin IS NOT NULL;

-- One row per (task, slot) ever claimed: who holds it. The claim is a
-- single INSERT .. ON CONFLICT on this primary key, so that two hosts can
-- never both hold a slot.
--   running_id:   the run of the slot that is running now (NULL: none)
--   succeeded_id: the latest run of the slot that succeeded (NULL: none)
-- Both are the largest such ids among the slot's runs, kept in step by every
-- write that changes a slot's run to or from running or succeeded.
CREATE TABLE slots (
  task         text NOT NULL,
  slot         timestamptz NOT NULL,
  running_id   bigint,
  succeeded_id bigint,
  PRIMARY KEY (task, slot)
);
