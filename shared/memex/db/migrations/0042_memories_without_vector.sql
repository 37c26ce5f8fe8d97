-- memex: concurrently
-- The memories waiting for their vector (a worker's messages stored while the embedder failed,
-- migration 0040; a line whose context an erasure took, db/erasure.py): the sweep reads them oldest
-- first and fills their vectors in (memex/vectorless.py), and counts them for MemoriesWithoutVector.
-- Without it each of those reads every memory's heap tuple; here they are a few entries, none when
-- the embedder has not failed. Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_without_vector;
CREATE INDEX CONCURRENTLY memories_without_vector ON memories (created_at, id) WHERE embedding IS NULL;
