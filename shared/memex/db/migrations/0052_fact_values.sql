-- memex: concurrently
-- A user's fact values found by what they hold or what holds them (history.send_chain_facts: "When
-- did we talk about X and Y?", "before Shopify"), which tested every semantic fact's value of the
-- user's on its row: 24,223 heap pages at a 100k-memory user (docs/measurements/performance.md).
-- The embedded Postgres ships no pg_trgm, so:
-- - memex_value_grams: a value's three-letter runs, each hashed with its user (as the seed), and
--   the user alone; a value holding a text holds all of the text's runs, so its array contains the
--   text's (`@>`, index memories_user_value_grams) whatever else it holds. Two runs hashed alike, or
--   two users, only add rows the caller's own test drops. The runs are read from the letters in one
--   pass (a window of three), not by substr at each place, which walks the text from its start each
--   time: a 10,000-letter question took 0.5 s so.
-- - memories_user_value_starts: the values' first 16 letters lower-cased, in byte order, where the
--   values a text holds are read by the 16 letters from each of its places (history._HELD_IN). Only
--   the first letters, so that an entry is at most 64 bytes beside its user's whatever the value's
--   length: a b-tree refuses an entry over 2,704 bytes, and a value is as long as what was said (a
--   950-letter CJK song's title made 2,850), which would fail its write and this build.
-- Both built without blocking the memories' writes.
CREATE OR REPLACE FUNCTION memex_value_grams(tenant text, usr text, value text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT ARRAY(SELECT DISTINCT hashtextextended(r.run, s.seed)
                 FROM (SELECT string_agg(l.letter, '') OVER (ORDER BY l.at ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS run
                       FROM unnest(string_to_array(value, NULL)) WITH ORDINALITY l(letter, at)) r
                 WHERE length(r.run) = 3) || s.seed
    FROM (SELECT hashtextextended(tenant || ' ' || usr, 0) AS seed) s
$f$;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_value_grams;
CREATE INDEX CONCURRENTLY memories_user_value_grams ON memories
    USING gin (memex_value_grams(tenant_id, user_id, lower(value))) WITH (fastupdate = off)
    WHERE memory_type = 'semantic' AND value IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_value_starts;
CREATE INDEX CONCURRENTLY memories_user_value_starts ON memories (tenant_id, user_id, (left(lower(value), 16) COLLATE "C"))
    WHERE memory_type = 'semantic' AND value IS NOT NULL;
