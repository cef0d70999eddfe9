-- Results transcribed from the benchmarks' papers, imported from the files bundled with the
-- server. A file is re-imported only when its content hash changes.
CREATE TABLE published_source (
    benchmark      TEXT PRIMARY KEY NOT NULL,
    source         TEXT NOT NULL,
    notes          TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    imported_at    TEXT NOT NULL
) STRICT;

CREATE TABLE published_table (
    id        INTEGER PRIMARY KEY,
    benchmark TEXT NOT NULL REFERENCES published_source (benchmark) ON DELETE CASCADE,
    table_key TEXT NOT NULL,
    title     TEXT NOT NULL,
    position  INTEGER NOT NULL,
    columns   TEXT NOT NULL, -- JSON array of metric names, in the paper's order
    UNIQUE (benchmark, table_key)
) STRICT;

CREATE TABLE published_row (
    id       INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES published_table (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    labels   TEXT NOT NULL, -- JSON object: label name -> text
    metrics  TEXT NOT NULL  -- JSON object: metric name -> number
) STRICT;

CREATE INDEX published_row_table ON published_row (table_id, position);
