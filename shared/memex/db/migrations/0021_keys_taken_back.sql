-- The links that cross keys: a fact under one key that took back another key's value ("The user is
-- out of work." ending the employer and the job title: supersession.related_keys), each with the
-- owner, subject and key of the value taken back. A present question about the employer reads the
-- news from here (history.send_ended) instead of walking every value of each key it names (5,803
-- facts, 198 ms p50, for a user with 2,839 employers and 2,964 job titles:
-- docs/measurements/performance.md); a user has a few of these. Only links between two semantic
-- facts of one user and subject under two keys, which no update changes (nothing rewrites a
-- memory's user, subject, type or key).
CREATE TABLE keys_taken_back (
    tenant_id    text NOT NULL,
    memory_id    text NOT NULL,   -- the fact that took the value back
    replaced_id  text NOT NULL,   -- the value taken back
    user_id      text NOT NULL,
    subject      text NOT NULL,
    key          text NOT NULL,   -- the key of the value taken back
    PRIMARY KEY (tenant_id, memory_id, replaced_id),
    -- a link taken apart (a late value placed between two) or gone with an erased memory takes its row
    FOREIGN KEY (tenant_id, memory_id, replaced_id) REFERENCES memory_links ON DELETE CASCADE
);
CREATE INDEX keys_taken_back_user ON keys_taken_back (tenant_id, user_id);

-- Kept by a trigger, not by the code that links: every writer of a link (supersession, a late value
-- placed, erasure closing a chain over a gap, consolidation, and the code still running while a
-- deploy migrates) keeps it, in the link's transaction. Creating the trigger waits for the links
-- being written and holds new ones until this commits, so the rows below miss none.
CREATE FUNCTION keys_taken_back_add() RETURNS trigger LANGUAGE plpgsql AS $add$
BEGIN
    INSERT INTO keys_taken_back (tenant_id, memory_id, replaced_id, user_id, subject, key)
    SELECT l.tenant_id, l.memory_id, l.replaced_id, o.user_id, o.subject, o.key
    FROM new_links l
    JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
    JOIN memories t ON t.tenant_id = l.tenant_id AND t.id = l.memory_id
    WHERE o.memory_type = 'semantic' AND t.memory_type = 'semantic' AND t.user_id = o.user_id
      AND t.subject = o.subject AND t.key <> o.key;
    RETURN NULL;
END
$add$;

CREATE TRIGGER keys_taken_back_insert AFTER INSERT ON memory_links
    REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION keys_taken_back_add();

INSERT INTO keys_taken_back (tenant_id, memory_id, replaced_id, user_id, subject, key)
SELECT l.tenant_id, l.memory_id, l.replaced_id, o.user_id, o.subject, o.key
FROM memory_links l
JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
JOIN memories t ON t.tenant_id = l.tenant_id AND t.id = l.memory_id
WHERE o.memory_type = 'semantic' AND t.memory_type = 'semantic' AND t.user_id = o.user_id
  AND t.subject = o.subject AND t.key <> o.key;
