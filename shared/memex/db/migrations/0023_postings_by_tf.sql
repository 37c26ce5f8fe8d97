-- memex: concurrently
-- A user's postings of a lexeme in the order the keyword channel takes them when even the rarest
-- of a question's words is in more memories than its cap (MEMEX_KEYWORD_MAX_POSTINGS): the memories
-- that use it most first (memories._keyword_sql). Without it the statement read and sorted every
-- posting of the word to keep the cap's first (12,070 postings for 2,000 at a 100k-memory user);
-- with it, it reads the cap's worth. Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memory_postings_by_tf;
CREATE INDEX CONCURRENTLY memory_postings_by_tf ON memory_postings (
    tenant_id, user_id, lexeme, (occurrences + 0.5::float8 * context_occurrences) DESC, memory_id);
