-- A user erased whole (db/erasure.user_chunk) lost their BM25 statistics a memory at a time: this
-- trigger's upserts of memory_stats and memory_terms cost ~1 ms a memory (docs/measurements/erasure.md).
-- The memories deleted of a user being erased (user_erasures, migration 0034) are now left out of
-- memory_stats and memory_terms here, and the erasure's last transaction deletes the user's rows of
-- both at once (their rows, however many, are the user's vocabulary, not their history). Nothing
-- reads them meanwhile: the user's searches are refused (409). Their postings still go with each
-- memory (a row each, by key), so that no transaction grows with the user's history.
CREATE OR REPLACE FUNCTION memory_stats_track() RETURNS trigger LANGUAGE plpgsql AS $track$
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
        postings_delta := 'SELECT tenant_id, user_id, id, active, content_tsv, -1 AS sign FROM old_rows';
        -- a user being erased: their statistics go whole with their last rows (db/erasure.user_chunk)
        delta := postings_delta || ' o WHERE NOT EXISTS (SELECT 1 FROM user_erasures e'
                 ' WHERE e.tenant_id = o.tenant_id AND e.user_id = o.user_id)';
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
