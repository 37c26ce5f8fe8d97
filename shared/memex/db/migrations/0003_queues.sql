-- An idempotency key belongs to one user: another user's turn with the same key is another turn.
-- The hash of the turn's canonical payload tells a retry from a different turn under a reused key.
DROP INDEX turns_idempotency;
CREATE UNIQUE INDEX turns_idempotency ON turns (tenant_id, user_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
ALTER TABLE turns ADD COLUMN payload_hash text;

-- A chunk of a backfill is claimed in Postgres, so a duplicated chunk message neither repeats
-- the chunk nor forks a second chain: `advanced_from` is the chunk that moved `position` on, and
-- `next_sent` says whether the message for the chunk at `position` is known to be on the queue.
ALTER TABLE backfills ADD COLUMN advanced_from text;
ALTER TABLE backfills ADD COLUMN next_sent boolean NOT NULL DEFAULT true;
