-- Autovacuum analyses a table once 50 rows + a tenth of it have changed since its last ANALYZE. A
-- user written after that (a new user, or the last conversation of an ingest) is missing from the
-- statistics until the table has grown by a tenth: the planner counts their rows as the average
-- user's, or as one row when every earlier user is among the most common values, and picks nested
-- loops that cost a search of theirs several times its time (docs/measurements/performance.md,
-- 2026-12-06 sixteenth stop, branch stats). A hundredth instead: ANALYZE reads a bounded sample
-- (300 × default_statistics_target rows), so analysing ten times as often costs about the same at a
-- thousand rows as at a million. What a search and the sessions listing read and the write path
-- writes (db/planner_statistics.SEARCHED_TABLES and sessions). A storage parameter: the catalogue
-- alone changes, under a lock that blocks neither reads nor writes; RDS and Aurora honour it.
ALTER TABLE memories SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE memory_stats SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE memory_terms SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE memory_postings SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE memory_links SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE messages SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE turns SET (autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE sessions SET (autovacuum_analyze_scale_factor = 0.01);
