-- An idempotency key belongs to one user: another user's turn with the same key is another turn.
-- The hash of the turn's canonical payload tells a retry from a different turn under a reused key.
DROP INDEX turns_idempotency;
CREATE UNIQUE INDEX turns_idempotency ON turns (tenant_id, user_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
ALTER TABLE turns ADD COLUMN payload_hash text;
