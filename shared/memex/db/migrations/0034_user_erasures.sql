-- memex: concurrently
-- A turn erased takes its memories by cascade (memories.source_turn_id), and Postgres looks for them
-- once per turn: without an index of its own that look-up read every memory of the tenant, so erasing
-- a user with 5,000 turns in a tenant of 320,000 memories took ~1.6 s a turn, hours in all
-- (docs/measurements/erasure.md). Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_source_turn;
CREATE INDEX CONCURRENTLY memories_source_turn ON memories (tenant_id, source_turn_id);
-- The users whose erasure began and has not finished (db/erasure.py): a user too large to erase in
-- one transaction within an HTTP request is erased in bounded transactions, and from the first of
-- them on, their row here refuses reads and writes naming them (409 user_being_erased), so that no
-- one sees a half-erased user. Deleted by the transaction that erases the user's last rows. A DELETE
-- sent again, or the sweep job, goes on from where the erasure stopped. No foreign key to tenants: a
-- DELETE may name a tenant that has no row yet (requests without a key, before any write).
CREATE TABLE IF NOT EXISTS user_erasures (
    tenant_id   text NOT NULL,
    user_id     text NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id)
);
