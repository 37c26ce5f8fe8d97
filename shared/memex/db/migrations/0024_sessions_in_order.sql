-- memex: concurrently
-- A user's sessions page by page, latest begun first (db/sessions.py): the statement walks the
-- user's turns from the latest back (turns_user_time) and keeps each session's first turn (one
-- descent of turns_user_session_time), so a page reads the turns of its own span; before, every page
-- grouped all the user's turns and their messages (about 120 ms at a user with 20,000 turns). The
-- session index takes turns_user's place (its columns are its prefix). Built without blocking the
-- turns' writes.
DROP INDEX CONCURRENTLY IF EXISTS turns_user_time;
CREATE INDEX CONCURRENTLY turns_user_time ON turns (tenant_id, user_id, occurred_at, session_id);
DROP INDEX CONCURRENTLY IF EXISTS turns_user_session_time;
CREATE INDEX CONCURRENTLY turns_user_session_time ON turns (tenant_id, user_id, session_id, occurred_at, id);
DROP INDEX CONCURRENTLY IF EXISTS turns_user;
