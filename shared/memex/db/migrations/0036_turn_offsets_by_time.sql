-- memex: concurrently
-- A user's latest turn sent with an offset (0035), read by every search or recall without a
-- reference time: one probe of this index, read from the index alone, whatever the number of the
-- user's turns. Partial: turns sent without an offset are not in it (an empty range for a user who
-- never sent one, as for every turn written before 0035). Built without blocking the turns' writes.
DROP INDEX CONCURRENTLY IF EXISTS turns_user_offsets;
CREATE INDEX CONCURRENTLY turns_user_offsets ON turns (tenant_id, user_id, occurred_at DESC) INCLUDE (utc_offset)
    WHERE utc_offset IS NOT NULL;
