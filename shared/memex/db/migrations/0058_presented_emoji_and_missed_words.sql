-- memex: python memex.db.reindex_words
-- The keyword channel's words (memex_text) for the emoji 0054 missed, and the memories 0043 and 0054 left stale.
-- - An emoji outside the blocks of pictographs (memex.emoji.PRESENTED: ▶ ⬆ © ™ ℹ, text by default) is an
--   emoji when VS16 (U+FE0F) follows it, as Unicode draws it: "▶️" is emoji25b6, "™️" emoji2122, found by
--   "▶️"; "▶" without VS16 is punctuation as before and "™" still folds to "TM". A keycap ("1️⃣", "#️⃣", a
--   digit, # or * then VS16 or not, then U+20E3) is one too: emoji31x20e3. memex.emoji.HEAD is the Python
--   mirror of the expression below.
-- - 0043 replaced memex_text and wrote again, in its own transaction, the memories holding Hangul or a
--   character that shows nothing: a memory another session wrote while it ran (its statement before 0043's
--   commit) was indexed with the old function and kept its old words, as 0054's emoji were before 0057.
-- This file's function is committed first; then, once the writers that may have used the one it replaces
-- have ended, the memories holding Hangul, a character that shows nothing, VS16 or a keycap whose stored
-- words are not today's reading are indexed again, user by user under their lock (db/reindex_words.py).
CREATE OR REPLACE FUNCTION memex_emoji_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT memex_emoji_words(t, '[\u231a\u231b\u2328\u23cf\u23e9-\u23f3\u23f8-\u23fa\u2600-\u275a\u2761-\u2767\u2776-\u27bf\u2b1b\u2b1c\u2b50\u2b55\U0001f000-\U0001f0ff\U0001f16d-\U0001f18f\U0001f191-\U0001f1ff\U0001f300-\U0001f3fa\U0001f400-\U0001faff]|[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe\u2934\u2935\u2b05-\u2b07\u3030\u303d\u3297\u3299\U0001f201\U0001f202\U0001f21a\U0001f22f\U0001f232-\U0001f23a\U0001f250\U0001f251]\ufe0f|[#*0-9]\ufe0f?\u20e3')
$f$;
