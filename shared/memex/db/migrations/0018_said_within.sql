-- memex: concurrently
-- A question that asks only what was said in a period ("what did I tell you yesterday?",
-- retrieval/period.py) reads the user's messages of that period, newest first: a range of this
-- index, whatever the user's size. Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_user_said;
CREATE INDEX CONCURRENTLY memories_user_said ON memories (tenant_id, user_id, valid_from DESC)
    WHERE memory_type = 'episodic';
