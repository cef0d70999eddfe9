-- A run's files and trajectories leave run_turn for run_file: one row per text (a file the
-- agent left in a turn, or the turn's trajectory) with its size, and its content in
-- run_file_part, consecutive pieces of at most 1 MiB of text each. New runs store every
-- piece deflated; the rows moved here keep their text as it was ('identity'), and the
-- server deflates them at its next start (server/src/storage.rs, `upgrade`), so nothing is
-- lost if that step is interrupted. Listing a run or its turns now reads no file at all,
-- and a turn's case reads only the pieces it shows.
CREATE TABLE run_file (
    id     INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    chain  TEXT NOT NULL,
    turn   INTEGER NOT NULL,
    kind   TEXT NOT NULL CHECK (kind IN ('file', 'trajectory')),
    path   TEXT NOT NULL,    -- relative to the repository root; '' for the trajectory
    size   INTEGER NOT NULL, -- bytes of the text as submitted
    CHECK ((kind = 'trajectory') = (path = '')),
    UNIQUE (run_id, chain, turn, kind, path),
    FOREIGN KEY (run_id, chain, turn) REFERENCES run_turn (run_id, chain, turn) ON DELETE CASCADE
) STRICT;

CREATE TABLE run_file_part (
    file_id  INTEGER NOT NULL REFERENCES run_file (id) ON DELETE CASCADE,
    part     INTEGER NOT NULL, -- 0, 1, ...: the text is the parts in order
    encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'deflate')),
    data     BLOB NOT NULL,
    PRIMARY KEY (file_id, part)
) STRICT;

-- The files of every stored turn (run_turn.files is a JSON object: path -> text).
INSERT INTO run_file (run_id, chain, turn, kind, path, size)
SELECT t.run_id, t.chain, t.turn, 'file', f.key, length(CAST(f.value AS BLOB))
FROM run_turn AS t, json_each(t.files) AS f;

INSERT INTO run_file_part (file_id, part, encoding, data)
SELECT rf.id, 0, 'identity', CAST(f.value AS BLOB)
FROM run_file AS rf
JOIN run_turn AS t ON t.run_id = rf.run_id AND t.chain = rf.chain AND t.turn = rf.turn
JOIN json_each(t.files) AS f ON f.key = rf.path
WHERE rf.kind = 'file';

-- Every stored trajectory.
INSERT INTO run_file (run_id, chain, turn, kind, path, size)
SELECT run_id, chain, turn, 'trajectory', '', length(CAST(trajectory AS BLOB))
FROM run_turn
WHERE trajectory IS NOT NULL;

INSERT INTO run_file_part (file_id, part, encoding, data)
SELECT rf.id, 0, 'identity', CAST(t.trajectory AS BLOB)
FROM run_file AS rf
JOIN run_turn AS t ON t.run_id = rf.run_id AND t.chain = rf.chain AND t.turn = rf.turn
WHERE rf.kind = 'trajectory';

ALTER TABLE run_turn DROP COLUMN files;
ALTER TABLE run_turn DROP COLUMN trajectory;
