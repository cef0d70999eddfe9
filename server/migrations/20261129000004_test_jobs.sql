-- Hidden-test jobs: one per run, queued, run by the server's workers, resumed after a restart.
-- A job's turns are committed one at a time (test_turn with its test_result rows, in one
-- transaction), so a restart re-runs only the turn that was in flight, and the primary keys
-- make a second result for the same turn impossible.
CREATE TABLE test_job (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL UNIQUE REFERENCES run (id) ON DELETE CASCADE,
    state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    turns_total  INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT
) STRICT;

CREATE INDEX test_job_by_state ON test_job (state, id);

CREATE TABLE test_turn (
    job_id     INTEGER NOT NULL REFERENCES test_job (id) ON DELETE CASCADE,
    chain      TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    passed     INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    tampered   TEXT,             -- why the report was not believed; NULL when it was
    duration_s REAL NOT NULL,
    PRIMARY KEY (job_id, chain, turn)
) STRICT;

CREATE TABLE test_result (
    job_id     INTEGER NOT NULL,
    chain      TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    module     TEXT NOT NULL,
    name       TEXT NOT NULL,
    class      TEXT,             -- external / internal where the benchmark says (ReCUBE)
    outcome    TEXT NOT NULL,
    duration_s REAL NOT NULL,
    excerpt    TEXT NOT NULL,    -- capped; never sent to clients (it may quote hidden tests)
    PRIMARY KEY (job_id, chain, turn, module, name),
    FOREIGN KEY (job_id, chain, turn) REFERENCES test_turn (job_id, chain, turn) ON DELETE CASCADE
) STRICT;
