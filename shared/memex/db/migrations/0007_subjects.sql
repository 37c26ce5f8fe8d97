-- Who a message was said by and who a memory is about, when that is not the user: in a
-- conversation with several named participants ("user_name" on the turn says which name is the
-- user's), what another participant says of themselves is about them, not the user.
-- messages.subject is NULL for the user's own messages (and for every message of a turn sent
-- without user_name); memories.subject is 'user' or the participant's name. Both columns get a
-- constant default, so adding them rewrites no row.
ALTER TABLE messages ADD COLUMN subject text;
ALTER TABLE memories ADD COLUMN subject text NOT NULL DEFAULT 'user';
