-- A row per session of a user: its turns and messages counted, its first and last turn's time, so
-- that a page of the user's sessions (db/sessions.py) reads one index range of its own rows. Before,
-- a page counted every turn of its sessions and their messages: a user of ten 2,000-turn sessions
-- paid 45-150 ms a page.
--
-- Statement-level triggers with transition tables keep the rows right whatever writes turns and
-- messages: an insert adds to its session's row (the hot path, no recount), a message erased with
-- its memory takes one from its turn's session, and a deleted turn's session (a session or a user
-- erased, a tenant dropped; their messages go by cascade) loses its row when all its turns went, or
-- is counted again from the turns left. A turn's user, session and time are never updated (nothing
-- writes them after the insert), so no update trigger.
--
-- Locking: a write holds its sessions' rows to commit, so two transactions writing one session queue
-- on it (a transaction writing several sessions in several statements, an import's chunk, takes its
-- users' locks first: db/backfills.insert_turns). A delete locks each session's row before reading
-- it, in a statement of its own, so it reads the turns committed by a writer it waited for; a writer
-- waiting on it finds the row as the delete left it, without the writer's own turn, and adds it.
CREATE TABLE sessions (
    tenant_id   text NOT NULL,
    user_id     text NOT NULL,
    session_id  text NOT NULL,
    turns       bigint NOT NULL,
    messages    bigint NOT NULL,
    started_at  timestamptz NOT NULL,
    last_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id, session_id)
);
-- The listing's order: latest begun first, then session id.
CREATE INDEX sessions_user_started ON sessions (tenant_id, user_id, started_at, session_id);

CREATE FUNCTION sessions_add_turns() RETURNS trigger LANGUAGE plpgsql AS $add$
BEGIN
    INSERT INTO sessions AS s (tenant_id, user_id, session_id, turns, messages, started_at, last_at)
    SELECT tenant_id, user_id, session_id, count(*), 0, min(occurred_at), max(occurred_at)
    FROM new_rows GROUP BY tenant_id, user_id, session_id ORDER BY tenant_id, user_id, session_id
    ON CONFLICT (tenant_id, user_id, session_id) DO UPDATE SET
        turns = s.turns + excluded.turns, started_at = least(s.started_at, excluded.started_at),
        last_at = greatest(s.last_at, excluded.last_at);
    RETURN NULL;
END
$add$;

-- The messages' triggers update a session's row at a time, by its key (plans kept for the
-- connection), for the reason given at sessions_remove_turns.
CREATE FUNCTION sessions_add_messages() RETURNS trigger LANGUAGE plpgsql AS $add$
DECLARE
    added record;
BEGIN
    -- A message's turn is inserted before it, in the same transaction: its session's row exists.
    FOR added IN SELECT t.tenant_id, t.user_id, t.session_id, count(*) AS n
                 FROM new_rows n JOIN turns t ON t.tenant_id = n.tenant_id AND t.id = n.turn_id
                 GROUP BY t.tenant_id, t.user_id, t.session_id ORDER BY t.tenant_id, t.user_id, t.session_id LOOP
        UPDATE sessions SET messages = messages + added.n
        WHERE tenant_id = added.tenant_id AND user_id = added.user_id AND session_id = added.session_id;
    END LOOP;
    RETURN NULL;
END
$add$;

CREATE FUNCTION sessions_remove_messages() RETURNS trigger LANGUAGE plpgsql AS $remove$
DECLARE
    removed record;
BEGIN
    -- Only messages whose turn is still there: those deleted with their turn (a direct delete of
    -- both) are counted again with it (sessions_remove_turns).
    FOR removed IN SELECT t.tenant_id, t.user_id, t.session_id, count(*) AS n
                   FROM old_rows o JOIN turns t ON t.tenant_id = o.tenant_id AND t.id = o.turn_id
                   GROUP BY t.tenant_id, t.user_id, t.session_id ORDER BY t.tenant_id, t.user_id, t.session_id LOOP
        UPDATE sessions SET messages = messages - removed.n
        WHERE tenant_id = removed.tenant_id AND user_id = removed.user_id AND session_id = removed.session_id;
    END LOOP;
    RETURN NULL;
END
$remove$;

CREATE FUNCTION sessions_remove_turns() RETURNS trigger LANGUAGE plpgsql AS $remove$
DECLARE
    gone record;
    counted bigint;
BEGIN
    -- A session at a time, in key order, each statement one look-up of its key (plans kept for the
    -- connection), as the foreign keys' cascades go a turn at a time. Joined with the deleted turns
    -- instead, the planner, which cannot tell how many sessions they hold, read the whole table of
    -- sessions (a 2,000-turn session's erasure took up to twice main's at 21,000 sessions: bench.sessions).
    FOR gone IN SELECT tenant_id, user_id, session_id, count(*) AS n FROM old_rows
                GROUP BY tenant_id, user_id, session_id ORDER BY tenant_id, user_id, session_id LOOP
        SELECT turns INTO counted FROM sessions
        WHERE tenant_id = gone.tenant_id AND user_id = gone.user_id AND session_id = gone.session_id FOR UPDATE;
        IF NOT FOUND THEN
            CONTINUE;
        ELSIF counted <= gone.n THEN
            -- all its turns went (the row, read after the lock, counts no more than went): no
            -- reading of the turns' index, where the deleted turns still are
            DELETE FROM sessions
            WHERE tenant_id = gone.tenant_id AND user_id = gone.user_id AND session_id = gone.session_id;
        ELSE
            -- some of its turns went (no route deletes fewer than a session's): counted again
            UPDATE sessions s SET turns = c.turns, messages = c.messages, started_at = c.started_at, last_at = c.last_at
            FROM (SELECT count(*) AS turns,
                         coalesce(sum((SELECT count(*) FROM messages m
                                       WHERE m.tenant_id = t.tenant_id AND m.turn_id = t.id)), 0)::bigint AS messages,
                         min(t.occurred_at) AS started_at, max(t.occurred_at) AS last_at
                  FROM turns t
                  WHERE t.tenant_id = gone.tenant_id AND t.user_id = gone.user_id AND t.session_id = gone.session_id) c
            WHERE s.tenant_id = gone.tenant_id AND s.user_id = gone.user_id AND s.session_id = gone.session_id
              AND c.turns > 0;
            IF NOT FOUND THEN
                DELETE FROM sessions
                WHERE tenant_id = gone.tenant_id AND user_id = gone.user_id AND session_id = gone.session_id;
            END IF;
        END IF;
    END LOOP;
    RETURN NULL;
END
$remove$;

CREATE TRIGGER sessions_turns_inserted AFTER INSERT ON turns REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sessions_add_turns();
CREATE TRIGGER sessions_turns_deleted AFTER DELETE ON turns REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sessions_remove_turns();
CREATE TRIGGER sessions_messages_inserted AFTER INSERT ON messages REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sessions_add_messages();
-- Only a delete of messages themselves (a memory's erasure): the cascade from a deleted turn runs a
-- statement a turn, inside the foreign key's trigger, and the turn's own trigger counts its session
-- again; fired there, a 2,000-turn session's erasure ran this 2,000 times.
CREATE TRIGGER sessions_messages_deleted AFTER DELETE ON messages REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION sessions_remove_messages();

-- The sessions written before: the triggers above already hold the turns' writes off (CREATE
-- TRIGGER locks the table against them to commit), so none is counted twice or missed.
INSERT INTO sessions (tenant_id, user_id, session_id, turns, messages, started_at, last_at)
SELECT t.tenant_id, t.user_id, t.session_id, count(*), sum(m.n)::bigint, min(t.occurred_at), max(t.occurred_at)
FROM turns t CROSS JOIN LATERAL (SELECT count(*) AS n FROM messages m
                                 WHERE m.tenant_id = t.tenant_id AND m.turn_id = t.id) m
GROUP BY t.tenant_id, t.user_id, t.session_id;

-- Only the sessions listing walked the turns by time (migration 0024): each turn's write kept it.
DROP INDEX turns_user_time;
