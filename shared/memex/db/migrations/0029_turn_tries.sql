-- When a worker last began extracting the turn (pipeline.extract_many), committed before it asks
-- anything: a worker stopped mid-batch (Lambda's timeout) leaves it, and the sweep (db/turns.py,
-- claim_lost) waits for SQS to deliver the turn again instead of re-sending it. Not an error: GET
-- /v1/turns/{id} does not show it. Nullable, no default: the table is not rewritten (constant time).
ALTER TABLE turns ADD COLUMN tried_at timestamptz;
