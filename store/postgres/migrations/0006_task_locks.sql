-- catchup shared ledger (PostgreSQL), schema version 6: a task's fleet-wide
-- lock is a row, not a session advisory lock held on a connection for the
-- whole run. The lock is run_id's while that run is running and its
-- heartbeat is fresher than the lease; then anyone may take it over.
CREATE TABLE task_locks (
    task   text PRIMARY KEY,
    run_id bigint NOT NULL
);
