-- What an erasure keeps of the turns it took becomes digests alone, kept past their user's erasure: a user's erasure
-- (DELETE /v1/users/{id}) keeps them too, so that an export of theirs written before stores nothing of them again,
-- and keeps no id the user gave or a turn had in clear (the user's id may be their e-mail address). Each digest
-- (erased_digest) is salted with the tenant and the user, as 0056's of a key was, and is the same for a key: those
-- 0056 kept carry over unchanged, its turn ids are digested, and its table goes. A turn's `imported_from_digests`
-- are the digests, salted with its own user, of every id it was imported from, nearest first (the turn its import
-- line named when that was another user's, then those the line carried, as an export writes them): a restore of a
-- restore is found erased by any of them, where 0056's `imported_from` kept one step, in clear, which a turn moved
-- from another user kept past that user's erasure. A tenant's deletion takes the digests with every row of it.
-- Idempotent, as a migration run again after a failure must be: what was moved is moved once.
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
ALTER TABLE turns ADD COLUMN IF NOT EXISTS imported_from_digests text[];
DO $$
BEGIN
    IF to_regclass('erased_turns') IS NOT NULL THEN
        INSERT INTO erased_turn_digests (tenant_id, turn_digest, key_digest)
        SELECT tenant_id, erased_digest(tenant_id, user_id, turn_id), key_digest FROM erased_turns
        ON CONFLICT DO NOTHING;
        DROP TABLE erased_turns;
    END IF;
    IF EXISTS (SELECT FROM information_schema.columns WHERE table_schema = current_schema()
               AND table_name = 'turns' AND column_name = 'imported_from') THEN
        UPDATE turns SET imported_from_digests = ARRAY[erased_digest(tenant_id, user_id, imported_from)]
        WHERE imported_from IS NOT NULL;
        ALTER TABLE turns DROP COLUMN imported_from;
    END IF;
END $$;
