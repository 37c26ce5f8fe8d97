-- BM25 statistics per user, kept by the writes themselves, so that a keyword search reads a few
-- rows instead of scanning the user's memories, and finds its candidates through an index scoped
-- to the user (the global GIN index on content_tsv lists every user's memories under a common
-- word: one user's size slowed every other user's search).
--
-- A user's statistics are kept twice: over the active memories (the default search) and over all
-- of them (include_inactive). Lengths are length(content_tsv), the number of distinct lexemes.
CREATE TABLE memory_stats (
    tenant_id      text NOT NULL,
    user_id        text NOT NULL,
    docs           bigint NOT NULL,
    length         bigint NOT NULL,
    active_docs    bigint NOT NULL,
    active_length  bigint NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

-- Document frequency of each lexeme among the user's memories (all, and active).
CREATE TABLE memory_terms (
    tenant_id  text NOT NULL,
    user_id    text NOT NULL,
    lexeme     text NOT NULL,
    df         int NOT NULL,
    active_df  int NOT NULL,
    PRIMARY KEY (tenant_id, user_id, lexeme)
);

-- The user's memories under each lexeme, with how often it occurs in the content (weight A) and
-- in the context (weight D); the search weighs the two (memories.CONTEXT_TF).
CREATE TABLE memory_postings (
    tenant_id            text NOT NULL,
    user_id              text NOT NULL,
    lexeme               text NOT NULL,
    memory_id            text NOT NULL,
    occurrences          smallint NOT NULL,
    context_occurrences  smallint NOT NULL,
    PRIMARY KEY (tenant_id, user_id, lexeme, memory_id)
);

-- Statement-level triggers with transition tables keep the three tables right whatever writes
-- memories: inserts and COPY, deactivation and reactivation, a context erased, deletes and the
-- cascades from turns and tenants. An update counts as removing the rows it changed and adding
-- them back changed; an update of other columns (an embedding) touches nothing here.
--
-- Locking: every statement first upserts the users' memory_stats rows, in key order, then their
-- terms, in key order. The memory_stats row is held to commit, so two transactions writing one
-- user's memories queue on it before touching any of the user's terms: they cannot deadlock on
-- these tables. A transaction writing several users' memories in several statements must take
-- the users' locks (db/locks.py) in a fixed order first, as every writer of memories does.
--
-- Inserts, the hot path, run static SQL (planned once per session); updates and deletes, which
-- must tell what changed, build theirs (memory_stats_track).
CREATE FUNCTION memory_stats_add() RETURNS trigger LANGUAGE plpgsql AS $add$
BEGIN
    INSERT INTO memory_stats AS s (tenant_id, user_id, docs, length, active_docs, active_length)
    SELECT tenant_id, user_id, count(*), sum(length(content_tsv)), count(*) FILTER (WHERE active),
           coalesce(sum(length(content_tsv)) FILTER (WHERE active), 0)
    FROM new_rows GROUP BY tenant_id, user_id ORDER BY tenant_id, user_id
    ON CONFLICT (tenant_id, user_id) DO UPDATE SET
        docs = s.docs + excluded.docs, length = s.length + excluded.length,
        active_docs = s.active_docs + excluded.active_docs,
        active_length = s.active_length + excluded.active_length;
    INSERT INTO memory_terms AS s (tenant_id, user_id, lexeme, df, active_df)
    SELECT d.tenant_id, d.user_id, t.lexeme, count(*), count(*) FILTER (WHERE d.active)
    FROM new_rows d, unnest(d.content_tsv) t
    GROUP BY d.tenant_id, d.user_id, t.lexeme ORDER BY d.tenant_id, d.user_id, t.lexeme
    ON CONFLICT (tenant_id, user_id, lexeme) DO UPDATE SET
        df = s.df + excluded.df, active_df = s.active_df + excluded.active_df;
    INSERT INTO memory_postings (tenant_id, user_id, lexeme, memory_id, occurrences, context_occurrences)
    SELECT d.tenant_id, d.user_id, t.lexeme, d.id,
           (SELECT count(*) FILTER (WHERE w <> 'D') FROM unnest(t.weights) w),
           (SELECT count(*) FILTER (WHERE w = 'D') FROM unnest(t.weights) w)
    FROM new_rows d, unnest(d.content_tsv) t;
    RETURN NULL;
END
$add$;

CREATE FUNCTION memory_stats_track() RETURNS trigger LANGUAGE plpgsql AS $track$
DECLARE
    -- (tenant_id, user_id, id, active, content_tsv, sign): the rows this statement removed
    -- (sign -1) and added (+1). An updated row counts when the columns %1$s (new) and %2$s (old)
    -- differ.
    changed text := $sql$
        SELECT o.tenant_id, o.user_id, o.id, o.active, o.content_tsv, -1 AS sign FROM old_rows o
        WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.tenant_id = o.tenant_id AND n.id = o.id
                          AND (%1$s) IS NOT DISTINCT FROM (%2$s))
        UNION ALL
        SELECT n.tenant_id, n.user_id, n.id, n.active, n.content_tsv, 1 FROM new_rows n
        WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.tenant_id = n.tenant_id AND o.id = n.id
                          AND (%1$s) IS NOT DISTINCT FROM (%2$s))$sql$;
    delta text;
    postings_delta text;
    any_change boolean;
BEGIN
    IF TG_OP = 'DELETE' THEN
        delta := 'SELECT tenant_id, user_id, id, active, content_tsv, -1 AS sign FROM old_rows';
        postings_delta := delta;
    ELSE
        delta := format(changed, 'n.user_id, n.active, n.content_tsv', 'o.user_id, o.active, o.content_tsv');
        -- postings do not depend on `active`: a supersession leaves them alone
        postings_delta := format(changed, 'n.user_id, n.content_tsv', 'o.user_id, o.content_tsv');
        EXECUTE format('SELECT EXISTS (%s)', delta) INTO any_change;
        IF NOT any_change THEN
            RETURN NULL;  -- an embedding, a validity interval: nothing the statistics count
        END IF;
    END IF;

    EXECUTE format($sql$
        WITH delta AS (%s)
        INSERT INTO memory_stats AS s (tenant_id, user_id, docs, length, active_docs, active_length)
        SELECT tenant_id, user_id, sum(sign), sum(sign * length(content_tsv)),
               coalesce(sum(sign) FILTER (WHERE active), 0),
               coalesce(sum(sign * length(content_tsv)) FILTER (WHERE active), 0)
        FROM delta GROUP BY tenant_id, user_id ORDER BY tenant_id, user_id
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET
            docs = s.docs + excluded.docs, length = s.length + excluded.length,
            active_docs = s.active_docs + excluded.active_docs,
            active_length = s.active_length + excluded.active_length$sql$, delta);

    EXECUTE format($sql$
        WITH delta AS (%s)
        INSERT INTO memory_terms AS s (tenant_id, user_id, lexeme, df, active_df)
        SELECT d.tenant_id, d.user_id, t.lexeme, sum(d.sign), coalesce(sum(d.sign) FILTER (WHERE d.active), 0)
        FROM delta d, unnest(d.content_tsv) t
        GROUP BY d.tenant_id, d.user_id, t.lexeme
        HAVING sum(d.sign) <> 0 OR coalesce(sum(d.sign) FILTER (WHERE d.active), 0) <> 0
        ORDER BY d.tenant_id, d.user_id, t.lexeme
        ON CONFLICT (tenant_id, user_id, lexeme) DO UPDATE SET
            df = s.df + excluded.df, active_df = s.active_df + excluded.active_df$sql$, delta);

    -- Nothing of an erased user's words stays behind, not even a count.
    EXECUTE format($sql$
        WITH delta AS (%s)
        DELETE FROM memory_terms s USING (SELECT DISTINCT d.tenant_id, d.user_id, t.lexeme
                                         FROM delta d, unnest(d.content_tsv) t WHERE d.sign < 0) g
        WHERE s.tenant_id = g.tenant_id AND s.user_id = g.user_id AND s.lexeme = g.lexeme
          AND s.df = 0$sql$, delta);
    EXECUTE format($sql$
        WITH delta AS (%s)
        DELETE FROM memory_stats s USING (SELECT DISTINCT tenant_id, user_id FROM delta WHERE sign < 0) g
        WHERE s.tenant_id = g.tenant_id AND s.user_id = g.user_id AND s.docs = 0$sql$, delta);
    EXECUTE format($sql$
        WITH delta AS (%s)
        DELETE FROM memory_postings p USING (SELECT d.tenant_id, d.user_id, t.lexeme, d.id
                                            FROM delta d, unnest(d.content_tsv) t WHERE d.sign < 0) g
        WHERE p.tenant_id = g.tenant_id AND p.user_id = g.user_id AND p.lexeme = g.lexeme
          AND p.memory_id = g.id$sql$, postings_delta);

    IF TG_OP = 'UPDATE' THEN
        EXECUTE format($sql$
            WITH delta AS (%s)
            INSERT INTO memory_postings (tenant_id, user_id, lexeme, memory_id, occurrences, context_occurrences)
            SELECT d.tenant_id, d.user_id, t.lexeme, d.id,
                   (SELECT count(*) FILTER (WHERE w <> 'D') FROM unnest(t.weights) w),
                   (SELECT count(*) FILTER (WHERE w = 'D') FROM unnest(t.weights) w)
            FROM delta d, unnest(d.content_tsv) t WHERE d.sign > 0$sql$, postings_delta);
    END IF;
    RETURN NULL;
END
$track$;

CREATE TRIGGER memory_stats_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_stats_add();
CREATE TRIGGER memory_stats_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_stats_track();
CREATE TRIGGER memory_stats_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_stats_track();

INSERT INTO memory_stats (tenant_id, user_id, docs, length, active_docs, active_length)
SELECT tenant_id, user_id, count(*), sum(length(content_tsv)),
       count(*) FILTER (WHERE active), coalesce(sum(length(content_tsv)) FILTER (WHERE active), 0)
FROM memories GROUP BY tenant_id, user_id;

INSERT INTO memory_terms (tenant_id, user_id, lexeme, df, active_df)
SELECT m.tenant_id, m.user_id, t.lexeme, count(*), count(*) FILTER (WHERE m.active)
FROM memories m, unnest(m.content_tsv) t GROUP BY m.tenant_id, m.user_id, t.lexeme;

INSERT INTO memory_postings (tenant_id, user_id, lexeme, memory_id, occurrences, context_occurrences)
SELECT m.tenant_id, m.user_id, t.lexeme, m.id,
       (SELECT count(*) FILTER (WHERE w <> 'D') FROM unnest(t.weights) w),
       (SELECT count(*) FILTER (WHERE w = 'D') FROM unnest(t.weights) w)
FROM memories m, unnest(m.content_tsv) t;

-- Only the keyword search read it, and it now reads memory_postings.
DROP INDEX memories_tsv;
