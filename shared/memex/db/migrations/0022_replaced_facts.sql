-- memex: concurrently
-- The user's facts no longer current (replaced, or ended): every hybrid search asks whether the
-- user has one (memories.ahead, Ahead.replaced) to skip the round trip that reads the window's
-- stale facts when there is none. Through memories_user_bits it read the user's inactive memories
-- one heap page each until it met a fact, and a consolidation ends messages by the hundred: up to
-- 101 heap reads a search, a bound taken as yes past it. Here, one descent answers it whatever the
-- number of inactive messages; such facts are few beside the memories, so the index stays small.
-- Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_user_replaced_facts;
CREATE INDEX CONCURRENTLY memories_user_replaced_facts ON memories (tenant_id, user_id)
    WHERE NOT active AND memory_type = 'semantic';
