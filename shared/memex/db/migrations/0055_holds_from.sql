-- When a fact began to hold, when the words it was drawn from say an earlier time than it was said ("I moved
-- to Paris last week": the end of last week). `valid_from` stays when it was said, which orders its key's
-- history (the later-said value is current); `as_of` and the answers' `valid_from` read this one
-- (db/validity.py, timeline.py). NULL: it holds from `valid_from`, as every fact written before this
-- column did. Nullable, no default: the table is not rewritten (constant time).
ALTER TABLE memories ADD COLUMN holds_from timestamptz;
