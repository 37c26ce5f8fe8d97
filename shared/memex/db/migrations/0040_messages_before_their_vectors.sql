-- A message's episodic memory may be stored before its vector: when the embedder fails as a worker
-- embeds a turn, its messages are stored without one (keyword-searchable at once, not in the vector
-- channel, whose statements read only rows with a vector) and the job's retry fills it in
-- (pipeline._store_episodic). Facts and every other memory are still stored with theirs. Only the
-- catalogue changes (dropping NOT NULL scans nothing); pgvector's indexes skip a NULL vector, and the
-- generated embedding_bits of a row without one is NULL.
ALTER TABLE memories ALTER COLUMN embedding DROP NOT NULL;
