-- Who queued each job. The queue serves submitters in turn, then each submitter's jobs in
-- turn, so k runs of one submitter cost everyone else what one run does (it was round robin
-- over jobs: k runs of sleeping modules delayed every other run k times). Until submitters
-- have tokens it is the client's address (an IPv6 client by its /64); 'server' for the
-- baselines the server queues itself; '' for jobs queued before it was recorded.
ALTER TABLE test_job ADD COLUMN submitter TEXT NOT NULL DEFAULT '';
-- The order of service: the claim that last took a turn of the job is the served_seq-th
-- (NULL: never served). `last_served_at` has milliseconds, and turns without a file end
-- within one, so two claims could tie and the queue served a job twice in a row; a counter
-- cannot tie.
ALTER TABLE test_job ADD COLUMN served_seq INTEGER;
UPDATE test_job SET served_seq = (
    SELECT count(*) FROM test_job AS earlier
    WHERE earlier.last_served_at IS NOT NULL
        AND (earlier.last_served_at < test_job.last_served_at
            OR (earlier.last_served_at = test_job.last_served_at AND earlier.id <= test_job.id)))
WHERE last_served_at IS NOT NULL;
CREATE INDEX test_job_by_submitter ON test_job (submitter, state, served_seq);
