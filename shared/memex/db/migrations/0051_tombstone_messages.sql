-- A tombstone names the message its erased fact was drawn from (the memory's source_message_id), so that
-- an export (export.py) leaves that message out: an import of it would draw the fact again, as a turn
-- received after the erasure, which no tombstone holds back. '' where it names none: a row written before
-- this migration (the memory is gone, its message not known), or a fact drawn from no one message; the
-- export then leaves out the whole turn. In the key: two messages of one turn may say one value (folded
-- alike, worded otherwise), each a message to leave out. The column comes with its constant default in the
-- catalogue alone; the key's index is built again over the table, as small as the facts users erased.
ALTER TABLE tombstones ADD COLUMN message_id text NOT NULL DEFAULT '';
ALTER TABLE tombstones DROP CONSTRAINT tombstones_pkey;
ALTER TABLE tombstones ADD PRIMARY KEY (tenant_id, turn_id, key, subject, value_digest, message_id);
