-- The vector channel's pre-selection (db/memories.py): each memory's embedding quantised to one
-- bit a dimension (pgvector >= 0.7), stored beside the user's scope in a covering b-tree, so that
-- the nearest candidates by Hamming distance come from an index-only scan of ~100 bytes a memory
-- instead of reading every full vector (1.5 KB) from the heap; only those candidates are then
-- ranked exactly. A stored generated column because an index-only scan can return a column,
-- not an expression; adding it rewrites the table and rebuilds its indexes once (HNSW included).
DO $$
BEGIN
    IF to_regprocedure('binary_quantize(vector)') IS NULL THEN
        RAISE EXCEPTION 'memex needs pgvector >= 0.7 (binary_quantize); this server has %',
            (SELECT extversion FROM pg_extension WHERE extname = 'vector')
            USING HINT = 'install a newer pgvector, then ALTER EXTENSION vector UPDATE';
    END IF;
END $$;
ALTER TABLE memories ADD COLUMN embedding_bits bit({embedding_dim})
    GENERATED ALWAYS AS (binary_quantize(embedding)::bit({embedding_dim})) STORED;
CREATE INDEX memories_user_bits ON memories (tenant_id, user_id, active) INCLUDE (id, embedding_bits);
