-- A message that shows nothing (empty, spaces, invisible format characters: an assistant message that
-- only called a tool) has made no episodic memory since commit 9ac9976 (episodic.py). A database
-- written before holds one for each, found in the place of the line it answered and recalled as an
-- empty bullet ("- " or "Caroline: "). They are deleted, as today's pipeline would never have written
-- them: the messages stay among their sessions' as sent, nothing was drawn from a message that says
-- nothing (so no fact, chain or end names one), and the keyword statistics follow the rows through
-- their trigger (0005). Deleted, not deactivated: an inactive memory reads as one something replaced,
-- and nothing did; not filtered in the reads, which every search and recall would pay for ever.
-- The class is episodic.shows_nothing's (Python's isspace and category Cf, Unicode 14). One pass over
-- the messages, stopped at each one's first visible character, then the unique index memories_dedupe
-- finds each blank one's memory: no scan of the memories.
DELETE FROM memories m USING messages msg
WHERE msg.content ~ '^[\u0009-\u000d\u001c-\u0020\u0085\u00a0\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]*$'
  AND m.tenant_id = msg.tenant_id AND m.dedupe_key = 'message:' || msg.id AND m.memory_type = 'episodic';
