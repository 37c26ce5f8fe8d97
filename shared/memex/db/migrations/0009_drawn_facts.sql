-- The facts drawn from a message: search's current-first check (retrieval/current_first.py) reads
-- them for each message it returns. By session this was a scan of the whole session per message,
-- which grows with a bulk import into one session; semantic memories only, so the index stays small.
CREATE INDEX memories_drawn_facts ON memories (tenant_id, source_message_id) WHERE memory_type = 'semantic';
