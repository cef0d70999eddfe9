-- Jobs are scheduled turn by turn, round robin over runs, within a time budget per run, and
-- can be cancelled and re-queued. The state check gains 'cancelled', which SQLite can only
-- do by rebuilding the table. Migrations run in a transaction, where foreign keys cannot be
-- switched off, so dropping the old table cascades to the turns and results: they are kept
-- aside first and put back once the new table has the old one's name.
CREATE TEMP TABLE kept_turn AS SELECT * FROM test_turn;
CREATE TEMP TABLE kept_result AS SELECT * FROM test_result;
CREATE TABLE test_job_new (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL UNIQUE REFERENCES run (id) ON DELETE CASCADE,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    turns_total    INTEGER NOT NULL,
    -- Failed attempts in a row (reset by every committed turn); at the limit the job fails.
    attempts       INTEGER NOT NULL DEFAULT 0,
    error          TEXT,
    created_at     TEXT NOT NULL,
    started_at     TEXT,
    finished_at    TEXT,
    -- A worker holds one turn of the job now (released after the turn; cleared at start).
    busy           INTEGER NOT NULL DEFAULT 0 CHECK (busy IN (0, 1)),
    -- When a worker last took a turn of it: the least recently served job goes next.
    last_served_at TEXT,
    -- Not before this time (a retry after a failed attempt waits).
    retry_at       TEXT,
    -- Sandbox seconds spent and allowed (NULL: no limit).
    spent_s        REAL NOT NULL DEFAULT 0,
    budget_s       REAL
) STRICT;
INSERT INTO test_job_new (id, run_id, state, turns_total, attempts, error, created_at,
    started_at, finished_at)
SELECT id, run_id, state, turns_total, 0, error, created_at, started_at, finished_at
FROM test_job;
UPDATE test_job_new SET spent_s = coalesce(
    (SELECT sum(duration_s) FROM kept_turn WHERE kept_turn.job_id = test_job_new.id), 0);
DROP TABLE test_job;
ALTER TABLE test_job_new RENAME TO test_job;
CREATE INDEX test_job_by_state ON test_job (state, busy, last_served_at, id);
INSERT INTO test_turn SELECT * FROM kept_turn;
INSERT INTO test_result SELECT * FROM kept_result;
DROP TABLE kept_turn;
DROP TABLE kept_result;
