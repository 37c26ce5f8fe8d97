-- History that follows time, erasure that closes chains, work that survives a lost message.

-- Which memory replaced which. A memory can replace several (an LLM judge merging two facts),
-- and a late fact is inserted between two links of a chain, so one column cannot hold it.
CREATE TABLE memory_links (
    tenant_id    text NOT NULL,
    memory_id    text NOT NULL,   -- the newer memory
    replaced_id  text NOT NULL,   -- an older one it replaced
    PRIMARY KEY (tenant_id, memory_id, replaced_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES memories(tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, replaced_id) REFERENCES memories(tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_links_replaced ON memory_links (tenant_id, replaced_id);
INSERT INTO memory_links (tenant_id, memory_id, replaced_id)
    SELECT tenant_id, id, supersedes FROM memories WHERE supersedes IS NOT NULL;
DROP INDEX memories_supersedes;
ALTER TABLE memories DROP COLUMN supersedes;

-- What the user erased must not come back when its turn is extracted again: no semantic memory
-- with this key is drawn from this turn again. Goes with the turn.
CREATE TABLE tombstones (
    tenant_id  text NOT NULL,
    turn_id    text NOT NULL,
    key        text NOT NULL,
    PRIMARY KEY (tenant_id, turn_id, key),
    FOREIGN KEY (tenant_id, turn_id) REFERENCES turns(tenant_id, id) ON DELETE CASCADE
);

-- The candidates extraction proposed, kept on the turn until supersession has decided them:
-- the queue message carries ids only (no copy of what was said sits in a queue or a DLQ),
-- and a turn whose supersession message was lost is sent again without extracting again.
ALTER TABLE turns ADD COLUMN candidates jsonb;
ALTER TABLE turns ADD COLUMN extracted_at timestamptz;
ALTER TABLE turns ADD COLUMN resolved_at timestamptz;
-- How often the sweep re-published the turn: past a limit it is marked failed, not sent forever.
ALTER TABLE turns ADD COLUMN republished int NOT NULL DEFAULT 0;
CREATE INDEX turns_resolved ON turns (tenant_id, user_id, extracted_at) WHERE resolved_at IS NOT NULL;
-- The sweep's evidence that the extraction queue moved past a turn: a later turn extracted.
CREATE INDEX turns_extracted ON turns (created_at) WHERE extracted_at IS NOT NULL;
-- Semantic memories by key: supersession's look-up of a user's current values.
CREATE INDEX memories_user_key ON memories (tenant_id, user_id, key) WHERE key IS NOT NULL;
