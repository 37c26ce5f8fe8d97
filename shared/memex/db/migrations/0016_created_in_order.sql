-- A memory's created_at was the time of its transaction (now()), which every memory of a turn
-- shares, so a user's list ("newest first", by created_at then id) ordered one turn's memories by
-- their random ids. The row's own clock keeps them in the order they were written. A default only:
-- no row is rewritten.
ALTER TABLE memories ALTER COLUMN created_at SET DEFAULT clock_timestamp();
