-- A memory's text kept in its row with its embedding. Since 0014 the 1.5 KB vector stays inline,
-- and a row passes the ~2 KB TOAST threshold with almost any text beside it: its content, context
-- and content_tsv then went out of line, one TOAST probe each time a statement read them: the
-- keyword channel's length(content_tsv) for every candidate, every ranking's content (8.5% of
-- Postgres's CPU under bench.load: docs/measurements/performance.md). A target of 8160 (the most
-- Postgres allows) keeps a row whole in its page until it would not fit one: the heap grows by
-- what the TOAST table no longer holds. Rows written from now on; `VACUUM FULL memories` moves
-- the existing ones, as for 0014.
ALTER TABLE memories SET (toast_tuple_target = 8160);
