-- memex: concurrently
-- The current jobs to come (`next_job`, any subject's), which the sweep reads every 5 minutes for
-- the users whose job may have started (pipeline.start_jobs_due): a handful of rows, whatever the
-- size of the memories table. Built without blocking the memories' writes.
DROP INDEX CONCURRENTLY IF EXISTS memories_jobs_to_come;
CREATE INDEX CONCURRENTLY memories_jobs_to_come ON memories (tenant_id, user_id)
    WHERE active AND memory_type = 'semantic' AND key LIKE '%next_job';
