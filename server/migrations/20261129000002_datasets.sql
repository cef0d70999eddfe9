-- Datasets shipped with the server (or placed in its datasets directory), imported at start.
-- A dataset is identified by name and version; its content hash says which files it had.
CREATE TABLE dataset (
    name           TEXT NOT NULL,
    version        TEXT NOT NULL,
    benchmark      TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    chains         INTEGER NOT NULL,
    turns          INTEGER NOT NULL,
    tests          INTEGER NOT NULL,
    imported_at    TEXT NOT NULL,
    PRIMARY KEY (name, version)
) STRICT;

CREATE TABLE dataset_turn (
    dataset_name    TEXT NOT NULL,
    dataset_version TEXT NOT NULL,
    chain           TEXT NOT NULL,
    turn            INTEGER NOT NULL,
    title           TEXT NOT NULL,
    module_path     TEXT NOT NULL,
    requirement     TEXT NOT NULL,
    repo_targets    TEXT NOT NULL, -- JSON array of qualified names
    self_targets    TEXT NOT NULL, -- JSON array of qualified names
    tests           INTEGER NOT NULL,
    PRIMARY KEY (dataset_name, dataset_version, chain, turn),
    FOREIGN KEY (dataset_name, dataset_version) REFERENCES dataset (name, version) ON DELETE CASCADE
) STRICT;
