-- When a fact began to hold, when the words it was drawn from say so ("I moved to Paris last week": the end
-- of last week) and that is before it stands in its key's history (`valid_from`: when it was said, which
-- orders its history: the later-said value is current). NULL: it holds from `valid_from`, as every fact
-- written before this column did. Read as `as_of` reads it, and as the wire's `valid_from`
-- (db/validity.py, timeline.py).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS holds_from timestamptz;
