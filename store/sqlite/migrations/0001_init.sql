-- catchup ledger, schema version 1.
CREATE TABLE tasks (
  name          TEXT PRIMARY KEY,
  schedule      TEXT NOT NULL DEFAULT '',
  tz            TEXT NOT NULL DEFAULT '',
  replay        TEXT NOT NULL DEFAULT 'all',
  argv          TEXT NOT NULL DEFAULT '[]',
  dir           TEXT NOT NULL DEFAULT '',
  shell         TEXT NOT NULL DEFAULT '',
  source        TEXT NOT NULL DEFAULT '',
  retries       INTEGER NOT NULL DEFAULT 0,
  retry_delay_ms INTEGER NOT NULL DEFAULT 60000,
  registered_at INTEGER NOT NULL, -- unix ms
  updated_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  task        TEXT NOT NULL,
  slot        INTEGER,            -- unix seconds; NULL when the run stands for no slot
  trigger     TEXT NOT NULL,
  status      TEXT NOT NULL,
  attempt     INTEGER NOT NULL DEFAULT 1,
  exit_code   INTEGER,
  signal      INTEGER NOT NULL DEFAULT 0,
  started_at  INTEGER NOT NULL,   -- unix ms
  ended_at    INTEGER,
  host        TEXT NOT NULL DEFAULT '',
  pid         INTEGER NOT NULL DEFAULT 0,
  boot_id     TEXT NOT NULL DEFAULT '',
  stdout_tail BLOB,
  stderr_tail BLOB,
  error       TEXT NOT NULL DEFAULT ''
) STRICT;

-- Claims and the missed-slot rule look runs up by (task, slot).
CREATE INDEX runs_task_slot ON runs(task, slot);
-- Latest run per task (ls) and per-task history.
CREATE INDEX runs_task_id ON runs(task, id);
-- Slotless runs near a tick, and a task's earliest run.
CREATE INDEX runs_task_started ON runs(task, started_at) WHERE slot IS NULL;
-- Interrupted-run detection reads only running records.
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';
