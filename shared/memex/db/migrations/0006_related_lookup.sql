-- Supersession's look-up of what a candidate may contradict reads only the user's current
-- semantic memories: by key, and the nearest by meaning. Through memories_user this was a scan
-- of every active memory of the user, episodic ones included, so its cost grew with the
-- user's whole history; this index holds only what is current and semantic.
CREATE INDEX memories_user_current_semantic ON memories (tenant_id, user_id, key)
    WHERE active AND memory_type = 'semantic';
