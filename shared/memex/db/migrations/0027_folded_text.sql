-- The keyword channel for text that is not plain English ASCII. memex_text(t) is what both sides
-- of a keyword match read, the stored column here and the query (memories._keyword_sql):
-- - accents folded: compatibility-decomposed (NFKD), combining diacritical marks (U+0300-U+036F)
--   dropped, recomposed (NFC), and the Latin letters with a stroke that do not decompose mapped to
--   their base, ß to ss. "Zurich" finds "Zürich", "cafe" finds NFC and NFD "café", "1234" "１２３４".
--   Postgres has normalize() since 13; the embedded build has no `unaccent`.
-- - Han and Kana characters each a word of its own: Chinese and Japanese are written without
--   spaces, and the parser made one lexeme of each run between punctuation ("我在北京工作"). A
--   query's characters then match wherever they stand, and BM25 ranks the memories holding all of
--   them first. Hangul words are kept whole, with their particles (서울에 is not 서울).
-- The Python mirror, for what a memory says as written, is memex.folding.fold.
-- ASCII (a UTF-8 text as long in bytes as in characters) is its own folding: a question or a memory
-- in English costs a length check (0.3 µs), not the ~15 µs of the normalizations and patterns. Not
-- STRICT: Postgres inlines a STRICT function only when its body is strict, and a CASE is not; called
-- instead of inlined, it cost 3.5 µs even for ASCII. A null folds to null all the same.
CREATE FUNCTION memex_text(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT CASE WHEN octet_length(t) = char_length(t) THEN t ELSE regexp_replace(
        replace(replace(translate(normalize(regexp_replace(normalize(t, NFKD), '[\u0300-\u036f]+', '', 'g'), NFC),
                                  'ŁłØøĐđĦħıĿŀ', 'LlOoDdHhiLl'), 'ß', 'ss'), 'ẞ', 'SS'),
        '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])', ' \1 ', 'g') END
$f$;

-- Rewrites the table under an exclusive lock (docs/measurements/performance.md: the time per
-- 50,000 memories), then the keyword statistics kept from the column (migration 0005) again.
ALTER TABLE memories DROP COLUMN content_tsv;
ALTER TABLE memories ADD COLUMN content_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', memex_text(left(content, 65536))), 'A')
    || setweight(to_tsvector('english', memex_text(left(coalesce(context, ''), 16384))), 'D')) STORED;

TRUNCATE memory_stats, memory_terms, memory_postings;

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
