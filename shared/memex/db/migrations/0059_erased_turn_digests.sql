-- What an erasure keeps of the turns it took becomes digests alone, kept past their user's erasure: a user's erasure
-- (DELETE /v1/users/{id}) keeps them too, so that an export of theirs written before stores nothing of them again,
-- and keeps no id the user gave or a turn had in clear (the user's id may be their e-mail address). Each digest
-- (erased_digest) is salted with the tenant and the user, as 0056's of a key was, and is the same for a key: those
-- 0056 kept carry over unchanged, its turn ids are digested. A turn's `imported_from_digests` are the digests, salted
-- with its own user, of every id it was imported from, nearest first (the turn its import line named when that was
-- another user's, then those the line carried, as an export writes them): a restore of a restore is found erased by
-- any of them, where 0056's `imported_from` kept one step, in clear, which a turn given to another user kept past
-- the first user's erasure. A tenant's deletion takes the digests with every row of the tenant. 0056's table and
-- column stay, emptied, read by no code of this version: a version before it rolled back onto the database writes
-- and reads them as it did (docs/operations.md). Idempotent, as a migration run again after a failure must be:
-- what was moved is moved once.
CREATE OR REPLACE FUNCTION erased_digest(tenant_id text, user_id text, said text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT encode(sha256(convert_to(tenant_id || chr(31) || user_id || chr(31) || said, 'UTF8')), 'hex') $$;
CREATE TABLE IF NOT EXISTS erased_turn_digests (
    tenant_id   text NOT NULL,
    turn_digest text NOT NULL,
    key_digest  text,
    PRIMARY KEY (tenant_id, turn_digest)
);
CREATE INDEX IF NOT EXISTS erased_turn_digests_keys ON erased_turn_digests (tenant_id, key_digest)
    WHERE key_digest IS NOT NULL;
INSERT INTO erased_turn_digests (tenant_id, turn_digest, key_digest)
SELECT tenant_id, erased_digest(tenant_id, user_id, turn_id), key_digest FROM erased_turns
ON CONFLICT DO NOTHING;
DELETE FROM erased_turns;
ALTER TABLE turns ADD COLUMN IF NOT EXISTS imported_from_digests text[];
UPDATE turns SET imported_from_digests = ARRAY[erased_digest(tenant_id, user_id, imported_from)], imported_from = NULL
WHERE imported_from IS NOT NULL;
