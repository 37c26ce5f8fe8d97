-- The users whose vectors have an HNSW index of their own (db/vector_indexes.py): a partial index
-- over memories WHERE tenant_id = '..' AND user_id = '..', built CONCURRENTLY by the scheduled
-- index job, never inside a request. A row exists only once its index is built and valid, so the
-- vector statement (db/memories.py) walks that index only for the users listed here; the index's
-- name is a hash of the user, so no catalog name carries an id.
CREATE TABLE user_vector_indexes (
    tenant_id   text NOT NULL,
    user_id     text NOT NULL,
    index_name  text NOT NULL UNIQUE,
    -- the user's active memories when it was built
    memories    bigint NOT NULL,
    built_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id)
);
