-- The keyword channel's words (memex_text, migrations 0027, 0043) for emoji: the parser dropped each as
-- it drops punctuation, in the stored text and the query alike, so "🍣" found nothing, not even "I love
-- 🍣". Each emoji, or sequence drawn as one (ZWJ sequence, skin tone, flag, variation selector), is now
-- a word of ASCII the parser keeps whole: "emoji" and its code points in hex, spaced apart ("🍕" is
-- emoji1f355). Variation selectors and skin tones are folded away as accents are ("❤️" is "❤", "👍🏽"
-- is "👍"), the joiners too (0043 drops them: so this comes first), the code points they join stay
-- ("👩‍💻" is emoji1f469x1f4bb). The pictographs and the sequence are memex.emoji's (PICTOGRAPH,
-- SEQUENCE), its Python mirror.
CREATE OR REPLACE FUNCTION memex_emoji_sequences(t text, pictograph text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT string_agg(p.part || coalesce(' ' || w.word || ' ', ''), '' ORDER BY p.n)
    FROM (SELECT e.element || '(?:\u200d' || e.element || ')*' AS sequence
          FROM (SELECT '(?:[\U0001f1e6-\U0001f1ff][\U0001f1e6-\U0001f1ff]|' || pictograph
                       || ')[\U000e0020-\U000e007f]*[\ufe0e\ufe0f\U0001f3fb-\U0001f3ff]*' AS element) e) k
    CROSS JOIN LATERAL unnest(regexp_split_to_array(t, k.sequence)) WITH ORDINALITY p(part, n)
    LEFT JOIN LATERAL (
        SELECT m.n, 'emoji' || (
            SELECT string_agg(to_hex(ascii(c.c)), 'x' ORDER BY c.i)
            FROM regexp_split_to_table(translate(m.s[1], E'\ufe0e\ufe0f\u200d\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff', ''), '')
                 WITH ORDINALITY c(c, i)) AS word
        FROM regexp_matches(t, k.sequence, 'g') WITH ORDINALITY m(s, n)) w ON w.n = p.n
$f$;

-- Two functions of one expression each, which Postgres inlines: a text without an emoji costs one
-- match of the class, not a call of memex_emoji_sequences (which doubled memex_text's time for any
-- text not in ASCII).
CREATE OR REPLACE FUNCTION memex_emoji_words(t text, pictograph text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT CASE WHEN t ~ pictograph THEN memex_emoji_sequences(t, pictograph) ELSE t END
$f$;

CREATE OR REPLACE FUNCTION memex_emoji_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT memex_emoji_words(t, '[\u231a\u231b\u2328\u23cf\u23e9-\u23f3\u23f8-\u23fa\u2600-\u275a\u2761-\u2767\u2776-\u27bf\u2b1b\u2b1c\u2b50\u2b55\U0001f000-\U0001f0ff\U0001f16d-\U0001f18f\U0001f191-\U0001f1ff\U0001f300-\U0001f3fa\U0001f400-\U0001faff]')
$f$;

-- ASCII as before (its own folding); else the emoji become words first, then 0043's reading.
CREATE OR REPLACE FUNCTION memex_text(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT CASE WHEN octet_length(t) = char_length(t) THEN t ELSE memex_hangul_stems(regexp_replace(
        replace(replace(translate(normalize(regexp_replace(normalize(
            translate(memex_emoji_words(t), E'\u200b\u200c\u200d\u2060\ufeff\u00ad', ''), NFKD), '[\u0300-\u036f]+', '', 'g'), NFC),
                                  'ŁłØøĐđĦħıĿŀ', 'LlOoDdHhiLl'), 'ß', 'ss'), 'ẞ', 'SS'),
        '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])', ' \1 ', 'g')) END
$f$;

-- The memories already holding an emoji are indexed again by migration 0057 (db/emoji_words.py), user by user
-- once these functions are committed: a statement here would hold every such row in one transaction and miss
-- the memories other sessions write while it runs, indexed with the function they see until this commits.
