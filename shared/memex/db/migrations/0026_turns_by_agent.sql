-- memex: concurrently
-- A user's sessions listed for one agent (db/sessions.py): each session of the user is checked for a
-- turn of the agent. Through turns_user_session_time that read the session's turns from the heap up
-- to the agent's first, all of them for a session the agent took no part in (a user of 200 sessions
-- of 50 turns, the agent in 5: 5-15 ms a page); here it is one probe of the index a session, read
-- from the index alone (0.2 ms). Partial: turns sent without an agent, the many in a single-agent
-- deployment, are not in it. Built without blocking the turns' writes.
DROP INDEX CONCURRENTLY IF EXISTS turns_user_agent;
CREATE INDEX CONCURRENTLY turns_user_agent ON turns (tenant_id, user_id, agent_id, session_id)
    WHERE agent_id IS NOT NULL;
