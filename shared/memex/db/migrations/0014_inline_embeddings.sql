-- A memory's embedding kept in its row instead of pgvector's default EXTERNAL storage, which
-- moves the 1.5 KB vector to the TOAST table whenever the row passes ~2 KB (two thirds of the
-- rows of bench/scale's data): every vector the exact ranking or the pre-selection's re-ranking
-- reads then cost a TOAST index probe and a second heap page. MAIN keeps it inline unless the row
-- would not fit a page, and the row's text columns go out of line first. Only rows written from
-- now on are stored this way: `VACUUM FULL memories` (an exclusive lock, every index rebuilt)
-- moves the existing ones inline (docs/measurements/performance.md, "Inline embeddings").
ALTER TABLE memories ALTER COLUMN embedding SET STORAGE MAIN;
