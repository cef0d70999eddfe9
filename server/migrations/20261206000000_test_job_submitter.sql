-- Who queued each job. The queue serves submitters in turn, then each submitter's jobs in
-- turn, so k runs of one submitter cost everyone else what one run does (it was round robin
-- over jobs: k runs of sleeping modules delayed every other run k times). Until submitters
-- have tokens it is the client's address (an IPv6 client by its /64); 'server' for the
-- baselines the server queues itself; '' for jobs queued before it was recorded.
ALTER TABLE test_job ADD COLUMN submitter TEXT NOT NULL DEFAULT '';
CREATE INDEX test_job_by_submitter ON test_job (submitter, state, last_served_at);
