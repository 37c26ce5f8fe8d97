-- Supersession's related look-up (db/memories.py related_active) reads a user's current semantic
-- memories through memories_user_current_semantic (0006). A supersession sets `active` to false,
-- which leaves the old row's entry in that partial index until VACUUM. A plain index scan marks
-- such an entry dead the first time it finds its row gone, and later scans skip it; a bitmap scan
-- never does, so every look-up visits the row of every fact superseded since the last VACUUM.
-- Once ANALYZE has seen a user with a long history the planner picks the bitmap scan (it estimates
-- the current facts from the share of active rows and the share of semantic ones, as if they were
-- independent: 1,500 rows where there are 90), and autovacuum comes less often as the table grows
-- (a fifth of it must be dead). Reading through this function keeps the plain index scan.
--
-- The index takes the subject as a key column too: the look-up asks for one subject, and an index
-- that matches every equality of the look-up is the one the planner prefers over another partial
-- index of semantic memories (memories_drawn_facts, which keeps superseded ones) when a tenant is
-- too new for statistics to tell them apart.
DROP INDEX memories_user_current_semantic;
CREATE INDEX memories_user_current_semantic ON memories (tenant_id, user_id, subject, key)
    WHERE active AND memory_type = 'semantic';

CREATE FUNCTION current_semantic_memories(p_tenant text, p_user text, p_subject text)
    RETURNS TABLE (id text, key text, embedding vector({embedding_dim}))
    LANGUAGE plpgsql STABLE
    SET enable_indexscan = on
    SET enable_bitmapscan = off
    SET enable_seqscan = off
AS $fn$
BEGIN
    -- Planned for these values at each call, as a statement sent by the client is: a plan made once
    -- for any user (a SQL function's) can take memories_user_bits and read every active memory.
    RETURN QUERY EXECUTE format(
        'SELECT m.id, m.key, m.embedding FROM memories m
         WHERE m.tenant_id = %L AND m.user_id = %L AND m.active AND m.memory_type = ''semantic'' AND m.subject = %L',
        p_tenant, p_user, p_subject);
END
$fn$;
