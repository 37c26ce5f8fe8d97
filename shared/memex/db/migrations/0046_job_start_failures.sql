-- When the sweep last failed to start this job to come for a failure of the user's own (a text of theirs the
-- embedder refuses, a 400), NULL if it never did: the sweep leaves it for pipeline.JOB_START_BACKOFF after,
-- where a start the embedder always refuses cost a call and a JobStartsFailed at every run (every 5 minutes)
-- for as long as the job was due. Read by the sweep's one statement over the current jobs to come (0039).
-- Nullable, no default: the table is not rewritten (constant time).
ALTER TABLE memories ADD COLUMN start_failed_at timestamptz;
