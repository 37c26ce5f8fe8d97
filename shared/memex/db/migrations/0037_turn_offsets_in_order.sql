-- memex: concurrently
-- The user's latest turn sent with an offset (db/turns.LATEST_OFFSET) is one turn even when two share
-- its time: of turns said at the same instant, the one received last (created_at, then the id, the
-- order pipeline._said decides them in), so that two turns sent at one timestamp with two offsets
-- give one answer, not the one the index happens to hold first. Replaces 0036's index, which ordered
-- by the time alone; one probe of it, read from the index alone, as before. Built without blocking
-- the turns' writes; the old one dropped once this one is valid.
DROP INDEX CONCURRENTLY IF EXISTS turns_user_offsets_in_order;
CREATE INDEX CONCURRENTLY turns_user_offsets_in_order
    ON turns (tenant_id, user_id, occurred_at DESC, created_at DESC, id DESC) INCLUDE (utc_offset)
    WHERE utc_offset IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS turns_user_offsets;
