-- Bound what reaches the text index. A tsvector holds at most 1 MB (1048575 bytes) of lexemes
-- and positions, and text of distinct short words needs several bytes of it per character:
-- ~640 K characters of random five-letter words already failed, so a message near the 1 MB body
-- limit failed every insert of its memory (and its turn was retried until it went to the DLQ).
-- The index now covers the first 64 Ki characters of the content and 16 Ki of the context. The
-- densest text measured, distinct CJK characters, takes under 7 bytes per character, so the
-- index stays under ~560 KB. Longer text is stored whole and found by its beginning; positions
-- past 16383 are clamped by Postgres, which leaves term frequencies intact.
ALTER TABLE memories DROP COLUMN content_tsv;
ALTER TABLE memories ADD COLUMN content_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', left(content, 65536)), 'A')
    || setweight(to_tsvector('english', left(coalesce(context, ''), 16384)), 'D')) STORED;
CREATE INDEX memories_tsv ON memories USING gin (content_tsv);
