-- The matches still to play, by run: a worker asks after every match it records whether
-- its run has any left, and the stall watch lists them. Without this index each question
-- walks every match of the run, so a run's cost grew with the square of its size.
CREATE INDEX matches_unfinished_by_run ON matches (run_id)
WHERE run_id IS NOT NULL AND status NOT IN ('finished', 'failed');
