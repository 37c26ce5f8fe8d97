-- A write for users takes their locks (db/locks.py) and then asks whether any is being erased
-- (user_erasures, migration 0034), to refuse them. One statement could not do both: in READ COMMITTED
-- a statement reads the snapshot taken when it began, before it waited for the lock, so one that waited
-- on an erasure's first transaction would read the mark as it was before that transaction committed.
-- A VOLATILE function's statements each take their own snapshot: the mark is read here after the
-- locks are held, in the round trip that takes them (db/erasing.locks_and_marks), not one of its own.
-- The locks are the ones locks.lock_user takes, in the order given (the caller sorts: no deadlock).
-- Returns the users of `users` being erased.
CREATE OR REPLACE FUNCTION lock_users_and_read_marks(t text, users text[]) RETURNS text[]
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    u text;
BEGIN
    FOREACH u IN ARRAY users LOOP
        PERFORM pg_advisory_xact_lock(hashtext(t), hashtext(u));
    END LOOP;
    RETURN ARRAY(SELECT e.user_id FROM user_erasures e WHERE e.tenant_id = t AND e.user_id = ANY(users));
END
$$;
