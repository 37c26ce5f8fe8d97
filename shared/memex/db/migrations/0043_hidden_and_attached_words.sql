-- The keyword channel's words (memex_text, migration 0027) for two kinds of text it still missed:
-- - characters that show nothing (zero-width space U+200B, non-joiner and joiner U+200C/U+200D, word
--   joiner U+2060, byte order mark U+FEFF, soft hyphen U+00AD) are dropped: text copied from a web
--   page carries them inside words, and "Rad<U+200B>iohead" was one lexeme with the space in it that
--   "Radiohead" never found. The query side (extraction/plain.py, then this) drops them alike.
-- - a Korean word is also read without the particles it ends with: Korean writes its postpositions
--   onto the noun (서울에서 "in Seoul", 고양이는 "the cat" as topic), and "서울" found nothing in
--   "서울에서 살고 있어요". Each run of Hangul syllables adds, after the text, every stem it leaves
--   when one or two of the particles listed below are taken off its end (at least a syllable
--   left): 서울에서 adds 서울; 고양이를 adds 고양이 and 고양 (이 is a particle too), as a question
--   "고양이" adds 고양, so every stem a question adds a stored word adds as well. The word itself
--   stays a word: an exact word still matches exactly, and ranks above a stem's match. Two particles
--   are at most six syllables, so only a run's last six places are tried: trying each place of a run
--   was quadratic (8,000 syllables without a space took 1.4 s, the 65,536 a memory's column reads
--   would take about 90).
--   No dictionary: a noun ending in a particle's syllable (나이 "age") also adds a stem (나 "I"),
--   a false match that ranks below the memories holding the word.
-- The Python mirror, for what a memory says as written, is memex.folding.fold.
CREATE FUNCTION memex_hangul_stems(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT CASE WHEN t !~ '[가-힣]' THEN t ELSE t || coalesce((
        SELECT string_agg(' ' || left(w.word[1], i), '' ORDER BY w.n, i DESC)
        FROM regexp_matches(t, '[가-힣]{2,}', 'g') WITH ORDINALITY w(word, n),
             generate_series(char_length(w.word[1]) - 1, greatest(char_length(w.word[1]) - 6, 1), -1) i
        WHERE substr(w.word[1], i + 1) ~ '^(?:이|가|은|는|을|를|에|의|도|만|와|과|로|으로|에서|에게|한테|께|께서|부터|까지|처럼|보다|하고|랑|이랑|마다|조차|밖에|이에요|예요|이야|입니다|이다){1,2}$'), '') END
$f$;

-- ASCII as before (its own folding); else the invisible characters go first, then 0027's folding,
-- then the Korean stems.
CREATE OR REPLACE FUNCTION memex_text(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT CASE WHEN octet_length(t) = char_length(t) THEN t ELSE memex_hangul_stems(regexp_replace(
        replace(replace(translate(normalize(regexp_replace(normalize(
            translate(t, E'\u200b\u200c\u200d\u2060\ufeff\u00ad', ''), NFKD), '[\u0300-\u036f]+', '', 'g'), NFC),
                                  'ŁłØøĐđĦħıĿŀ', 'LlOoDdHhiLl'), 'ß', 'ss'), 'ẞ', 'SS'),
        '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])', ' \1 ', 'g')) END
$f$;

-- The stored column is generated from memex_text: only the memories whose text the new reading
-- changes are written again (row by row, no lock on the table: 0027's rewrite of every memory is
-- not needed), and the keyword statistics follow them through their trigger (0005, 0038).
UPDATE memories SET content = content
WHERE content ~ '[\u200b\u200c\u200d\u2060\ufeff\u00ad가-힣]'
   OR context ~ '[\u200b\u200c\u200d\u2060\ufeff\u00ad가-힣]';
