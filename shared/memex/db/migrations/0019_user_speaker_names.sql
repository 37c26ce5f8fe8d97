-- memex: concurrently
-- The names a user's memories are said by or about (0013), each with whether the user's own messages
-- are said under it (a role-user message of the user, not another participant's): a search reads
-- the user's own names with the participants' (memories.ahead), to take a question that names the
-- user for one about "the user". A skip scan of this index probes it once per name and kind, whatever
-- the number of memories; its first columns serve what 0013's index did, which it replaces. Built
-- without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_user_speaker_kinds;
CREATE INDEX CONCURRENTLY memories_user_speaker_kinds ON memories (
    tenant_id, user_id, (coalesce(metadata->>'name', nullif(subject, 'user'))),
    ((subject = 'user' AND coalesce(metadata->>'role', '') = 'user')))
    WHERE coalesce(metadata->>'name', nullif(subject, 'user')) IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS memories_user_speakers;
