-- memex: concurrently
-- The statements that ended a fact ("I quit Stripe": decision 'end', the head of a chain that has
-- no current value), so that the key's next value (a job taken afterwards) continues that chain
-- instead of starting a history of its own (timeline.plan). Looked up once per first value of a
-- key; ended facts are few, so the index stays small. Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_user_ended_facts;
CREATE INDEX CONCURRENTLY memories_user_ended_facts ON memories (tenant_id, user_id, subject, key, valid_to DESC)
    WHERE memory_type = 'semantic' AND metadata->>'decision' = 'end';
