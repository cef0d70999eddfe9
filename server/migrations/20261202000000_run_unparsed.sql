-- The run's report of unparsed actions (spec 1: counted, never silently dropped), as JSON.
-- NULL for runs scored before it was kept; they get one when they are scored again.
ALTER TABLE run ADD COLUMN unparsed TEXT;
