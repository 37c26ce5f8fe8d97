-- The offset from UTC, in minutes, a turn's `timestamp` was sent with (`2026-03-04T21:30:00+09:00`:
-- 540); NULL for a timestamp without one, or none. `occurred_at` keeps the instant and loses the
-- offset: the latest one a user sent is their zone, in which a search or recall without a reference
-- time reads days (user_zone.py). On the turn, not a row of the user's: it goes with its turn, so
-- a session's or a user's erasure takes it without another statement. Nullable, no default: the
-- table is not rewritten (constant time).
ALTER TABLE turns ADD COLUMN utc_offset smallint;
