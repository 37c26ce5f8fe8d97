-- The names a user's memories are said by or about (db/memories.py SPEAKER: a message's name, else
-- the participant a fact is about), so that a search can read the user's participants before its
-- first round trip (memories.ahead): a skip scan of this index probes it once per name
-- instead of reading every memory. The user's own facts and unnamed messages have no name and are
-- left out of it.
CREATE INDEX memories_user_speakers ON memories (tenant_id, user_id, (coalesce(metadata->>'name', nullif(subject, 'user'))))
    WHERE coalesce(metadata->>'name', nullif(subject, 'user')) IS NOT NULL;
