-- When the sweep last failed to embed the memory (memex/vectorless.py), NULL if it never did: the sweep
-- takes the memories waiting for their vector never failed first, then the one that failed longest ago,
-- so that one it can never embed (a text the embedder refuses) no longer stops every run before the
-- others. Read through index memories_without_vector (0042), which holds only the memories waiting.
-- Nullable, no default: the table is not rewritten (constant time).
ALTER TABLE memories ADD COLUMN vector_failed_at timestamptz;
