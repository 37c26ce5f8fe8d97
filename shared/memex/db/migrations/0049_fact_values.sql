-- memex: concurrently
-- A user's fact values found by what they hold or what holds them (history.send_chain_facts: "When
-- did we talk about X and Y?", "before Shopify"), which tested every semantic fact's value of the
-- user's on its row: 24,223 heap pages at a 100k-memory user (docs/measurements/performance.md).
-- The embedded Postgres ships no pg_trgm, so:
-- - memex_value_grams: a value's three-letter runs, each hashed with its user (as the seed), and
--   the user alone; a value holding a text holds all of the text's runs, so its array contains the
--   text's (`@>`, index memories_user_value_grams) whatever else it holds. Two runs hashed alike, or
--   two users, only add rows the caller's own test drops.
-- - memories_user_values: the values lower-cased in byte order, where the values a text holds are
--   read by their prefixes, one probe each (history._held_in).
-- Both built without blocking the memories' writes.
CREATE OR REPLACE FUNCTION memex_value_grams(tenant text, usr text, value text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT ARRAY(SELECT DISTINCT hashtextextended(substr(value, i, 3), hashtextextended(tenant || ' ' || usr, 0))
                 FROM generate_series(1, length(value) - 2) i) || hashtextextended(tenant || ' ' || usr, 0)
$f$;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_value_grams;
CREATE INDEX CONCURRENTLY memories_user_value_grams ON memories
    USING gin (memex_value_grams(tenant_id, user_id, lower(value))) WITH (fastupdate = off)
    WHERE memory_type = 'semantic' AND value IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_values;
CREATE INDEX CONCURRENTLY memories_user_values ON memories (tenant_id, user_id, (lower(value)) COLLATE "C")
    WHERE memory_type = 'semantic' AND value IS NOT NULL;
