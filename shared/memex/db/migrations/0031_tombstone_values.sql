-- A tombstone names what was erased: the subject, key and value of the erased fact, the value by a
-- digest of it folded as supersession compares values (db/erasure.py: the words are not kept, an
-- erased value has no copy left), and when it was erased. A turn received before then extracted
-- again brings back no fact of that subject, key and value, whichever turn it comes from, and
-- still brings back the other values of the key ("I just started at Notion, left Stripe.", with
-- Stripe erased, keeps Notion). A row written before this migration (subject and value_digest
-- empty) keeps its meaning: no fact of the key from its own turn. Each row names its user, so that a
-- turn's check reads that user's tombstones alone, not every turn of theirs.
ALTER TABLE tombstones ADD COLUMN subject text NOT NULL DEFAULT '',
                       ADD COLUMN value_digest text NOT NULL DEFAULT '',
                       ADD COLUMN erased_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE tombstones DROP CONSTRAINT tombstones_pkey;
ALTER TABLE tombstones ADD PRIMARY KEY (tenant_id, turn_id, key, subject, value_digest);
ALTER TABLE tombstones ADD COLUMN user_id text;
UPDATE tombstones t SET user_id = u.user_id FROM turns u WHERE u.tenant_id = t.tenant_id AND u.id = t.turn_id;
ALTER TABLE tombstones ALTER COLUMN user_id SET NOT NULL;
CREATE INDEX tombstones_user ON tombstones (tenant_id, user_id);
