-- Tenants, API keys, turns, messages and memories. {embedding_dim} is filled in at apply time.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE tenants (
    id          text PRIMARY KEY,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    key_hash    text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    prefix      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE turns (
    tenant_id        text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id               text NOT NULL,
    user_id          text NOT NULL,
    session_id       text NOT NULL,
    agent_id         text,
    occurred_at      timestamptz NOT NULL,
    metadata         jsonb NOT NULL DEFAULT '{}',
    idempotency_key  text,
    status           text NOT NULL DEFAULT 'queued'
                     CHECK (status IN ('queued', 'processing', 'processed', 'failed')),
    error            text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX turns_idempotency ON turns (tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX turns_user ON turns (tenant_id, user_id, session_id);
CREATE INDEX turns_unfinished ON turns (updated_at) WHERE status IN ('queued', 'processing');

CREATE TABLE messages (
    tenant_id   text NOT NULL,
    id          text NOT NULL,
    turn_id     text NOT NULL,
    position    int NOT NULL,
    role        text NOT NULL,
    name        text,
    content     text NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, turn_id) REFERENCES turns(tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX messages_turn ON messages (tenant_id, turn_id, position);

CREATE TABLE memories (
    tenant_id          text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id                 text NOT NULL,
    user_id            text NOT NULL,
    agent_id           text,
    session_id         text,
    memory_type        text NOT NULL CHECK (memory_type IN ('episodic', 'semantic', 'procedural')),
    type               text NOT NULL,
    key                text,
    value              text,
    content            text NOT NULL,
    -- What was said just before (episodic memories): indexed and embedded with the content,
    -- because a reply ("Yes, last May!") means little without the line it answers.
    context            text,
    importance         real NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    confidence         real NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    embedding          vector({embedding_dim}) NOT NULL,
    -- The context's words count for half (weight D) in BM25: what a memory says comes first.
    content_tsv        tsvector GENERATED ALWAYS AS (
                           setweight(to_tsvector('english', content), 'A')
                           || setweight(to_tsvector('english', coalesce(context, '')), 'D')) STORED,
    supersedes         text,
    active             boolean NOT NULL DEFAULT true,
    valid_from         timestamptz NOT NULL,
    valid_to           timestamptz,
    source_turn_id     text,
    source_message_id  text,
    -- Makes every worker write idempotent: a redelivered message maps to the same key.
    dedupe_key         text,
    metadata           jsonb NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, source_turn_id) REFERENCES turns(tenant_id, id) ON DELETE CASCADE,
    -- Erasing a newer fact must not erase the older one it replaced: only the link is cleared.
    FOREIGN KEY (tenant_id, supersedes) REFERENCES memories(tenant_id, id) ON DELETE SET NULL (supersedes)
);
CREATE UNIQUE INDEX memories_dedupe ON memories (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX memories_user ON memories (tenant_id, user_id, active, created_at DESC);
CREATE INDEX memories_session ON memories (tenant_id, session_id);
CREATE INDEX memories_supersedes ON memories (tenant_id, supersedes);
CREATE INDEX memories_tsv ON memories USING gin (content_tsv);
CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops);

-- Bulk jobs (import, re-embed, re-extract): progress, and the cursor they resume from.
CREATE TABLE backfills (
    tenant_id   text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id          text NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('import', 'reembed', 'reextract')),
    source      text,
    user_id     text,
    status      text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    total       int,
    done        int NOT NULL DEFAULT 0,
    failed      int NOT NULL DEFAULT 0,
    position    text,
    error       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);
