-- The turns a session's erasure took, by id and by a digest of their idempotency key alone (nothing they
-- said), with whose they were: a line of an export written before the erasure names its turn (`turn_id`),
-- a line of a plain backfill file carries its turn's key again (`backfill:<sha256>:<offset>`), and its
-- user's import counts it erased rather than storing it again (db/backfills.insert_turns); the tombstones
-- went with the turn and held back only turns received before the erasure. The key is kept as a digest
-- salted with whose it was (db/erasure._key_digest), as a key may say anything its client put in it. A
-- turn an import stored from a line naming another (`imported_from`) is recorded by both ids, so that a
-- second restore of the same backup does not bring it back either. A user's erasure takes their rows, as
-- it takes every row naming them; a tenant's deletion, every row of the tenant. Idempotent, as a migration
-- run again after a failure must be; the two columns come with their defaults in the catalogue alone (no
-- table is rewritten).
CREATE TABLE IF NOT EXISTS erased_turns (
    tenant_id  text NOT NULL,
    user_id    text NOT NULL,
    turn_id    text NOT NULL,
    key_digest text,
    PRIMARY KEY (tenant_id, user_id, turn_id)
);
CREATE INDEX IF NOT EXISTS erased_turns_keys ON erased_turns (tenant_id, user_id, key_digest)
    WHERE key_digest IS NOT NULL;
ALTER TABLE turns ADD COLUMN IF NOT EXISTS imported_from text;
-- An import's lines naming a turn their user erased: not stored, counted apart from `done` and `failed`.
ALTER TABLE backfills ADD COLUMN IF NOT EXISTS erased integer NOT NULL DEFAULT 0;
