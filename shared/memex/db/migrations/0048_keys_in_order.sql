-- memex: concurrently
-- A user's keyed memories by key, each key's in the order the topic channel ranks them (the most
-- important first, then the latest: memories.topic_statement). The channel reads the user's distinct
-- keys from it (a skip scan, one probe a key), then the first few of each key a question's kinds
-- match; before, it matched the kinds against every keyed memory's row (17,400 heap pages at a
-- 100k-memory user, whatever the question). It replaces memories_user_key (tenant_id, user_id, key),
-- its prefix, which every other read by key takes as it took that one. Built without blocking the
-- memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_user_key_order;
CREATE INDEX CONCURRENTLY memories_user_key_order ON memories (
    tenant_id, user_id, key, importance DESC, valid_from DESC, id) WHERE key IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_key;
