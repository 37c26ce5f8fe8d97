-- A job's failed lines were only in the log (CloudWatch in AWS, mixed with every chunk's lines, and
-- gone when the log is): the first lines that failed are kept on the job, each by its byte offset,
-- its line number and why, never what it says (backfill.py bounds how many).
ALTER TABLE backfills ADD COLUMN failures jsonb NOT NULL DEFAULT '[]';
-- Lines read before the chunk at `position` (blank ones included), so that a failed line's number is
-- known. NULL for a job started before this column: its line numbers are not known.
ALTER TABLE backfills ADD COLUMN lines_read integer;
ALTER TABLE backfills ALTER COLUMN lines_read SET DEFAULT 0;
