-- Runs scored by this server: uploaded run bundles (origin 'verified') and the baselines the
-- server computes from each dataset (origin 'baseline'). A run records the dataset content
-- it was scored against; it is not deleted when a dataset is re-imported.
CREATE TABLE run (
    id               INTEGER PRIMARY KEY,
    origin           TEXT NOT NULL CHECK (origin IN ('verified', 'baseline')),
    baseline         TEXT CHECK (baseline IN ('reference', 'empty', 'copy')),
    benchmark        TEXT NOT NULL,
    dataset_name     TEXT NOT NULL,
    dataset_version  TEXT NOT NULL,
    dataset_sha256   TEXT NOT NULL,
    bundle_sha256    TEXT NOT NULL,
    model            TEXT NOT NULL,
    harness          TEXT NOT NULL,
    memory           TEXT NOT NULL,
    run_date         TEXT NOT NULL,
    cost_usd         REAL,
    scaffold_version TEXT,
    notes            TEXT,
    scorer_version   TEXT NOT NULL,
    grammar_version  TEXT NOT NULL,
    chains           INTEGER NOT NULL,
    turns            INTEGER NOT NULL,
    overall          TEXT NOT NULL, -- JSON: the run's row, {column: Score}
    series           TEXT NOT NULL, -- JSON: {column: [Score, ...]} over turns 1..T
    diagnostics      TEXT NOT NULL, -- JSON array
    created_at       TEXT NOT NULL,
    CHECK ((origin = 'baseline') = (baseline IS NOT NULL)),
    UNIQUE (dataset_name, dataset_version, bundle_sha256)
) STRICT;

CREATE INDEX run_by_benchmark ON run (benchmark, origin);

-- One row per turn of the dataset: what the agent left, its trajectory and the turn's scores.
CREATE TABLE run_turn (
    run_id     INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    chain      TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    files      TEXT NOT NULL, -- JSON object: path -> text, as submitted
    trajectory TEXT,          -- as the harness wrote it
    score      TEXT NOT NULL, -- JSON: the scorer's turn row (columns, targets, evidence, counts)
    PRIMARY KEY (run_id, chain, turn)
) STRICT;
