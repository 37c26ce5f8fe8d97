"""A question of emoji finds what was said with them (memex.emoji, migration 0054): the keyword channel
reads each emoji, or sequence drawn as one, as a word, and the local embedder reads it as its name."""

from __future__ import annotations

import psycopg
import pytest

from memex import emoji
from memex.folding import fold

PIZZA, SUSHI = "My favourite food is 🍕", "Had the best 🍣 tonight!"
OTHERS = ["I went running in the park.", "The weather was cold all week.", "My sister lives in Porto.",
          "We watched a film on Friday.", "Had a quiet dinner at home tonight."]


def _remember(tenant, *contents: str) -> None:
    for content in contents:
        response = tenant.post("/v1/memories", {"user_id": tenant.user, "content": content})
        assert response.status_code == 201, response.text


def _found(tenant, query: str, mode: str) -> list[str]:
    return [r["content"] for r in tenant.search(query, mode=mode)]


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
@pytest.mark.parametrize("query,expected", [("🍕", PIZZA), ("🍣", SUSHI), ("🍣🍣", SUSHI), ("🍣 dinner", SUSHI),
                                            ("dinner 🍣", SUSHI), ("🍕 food", PIZZA)])
def test_a_question_of_emoji_finds_the_memory_that_said_it(tenant, query, expected, mode):
    _remember(tenant, PIZZA, SUSHI, *OTHERS)
    found = _found(tenant, query, mode)
    assert found and found[0] == expected, found


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
@pytest.mark.parametrize("query,stored", [
    ("👩\u200d💻", "Started my new job as a 👩\u200d💻 today"),  # a ZWJ sequence, one word
    ("👩🏽\u200d💻", "Started my new job as a 👩\u200d💻 today"),  # the skin tone folded away
    ("👍", "Sounds good 👍🏽"),
    ("🇯🇵", "Flying to 🇯🇵 next week"),  # a flag: two regional indicators
    ("❤", "Love this ❤️"), ("❤️", "Love this ❤"),  # with or without the variation selector
    ("👨\u200d👩\u200d👧", "Our 👨\u200d👩\u200d👧 trip to the coast"),
    ("▶️", "Press ▶️ to start the film"), ("©️", "©️ Ana, all rights kept"),  # VS16 makes an emoji of text
    ("1️⃣", "My 1️⃣ pick is the blue one"), ("#️⃣", "Tag it with #️⃣ please"),  # keycaps
])
def test_an_emoji_sequence_is_one_word_however_it_is_drawn(tenant, query, stored, mode):
    _remember(tenant, stored, "Flying to 🇺🇸 next month", "Our 👨 trip to the coast", "Ate a 👩‍🍳 special", *OTHERS)
    found = _found(tenant, query, mode)
    assert found and found[0] == stored, found
    if mode == "bm25":
        # the sequence is its own word: not the flag of another country, not one emoji of its sequence
        assert found == [stored], found


@pytest.mark.parametrize("query,expected", [("pizza", PIZZA), ("sushi", SUSHI), ("🍕", "I love pizza")])
def test_a_word_finds_its_emoji_by_meaning_and_an_emoji_its_word(tenant, query, expected):
    """The local embedder reads an emoji as its name: "pizza" finds "🍕" in hybrid, which no keyword of
    the query holds, and "🍕" the memory that says pizza."""
    _remember(tenant, *([PIZZA, SUSHI] if expected != "I love pizza" else [expected, "Had sushi tonight"]), *OTHERS)
    found = _found(tenant, query, "hybrid")
    assert found and found[0] == expected, found


def test_an_emoji_a_user_never_said_finds_nothing(tenant):
    """The relevance floor holds: an emoji the user never used asks about nothing they said."""
    _remember(tenant, PIZZA, SUSHI, "Sounds good 👍🏽", *OTHERS)
    for mode in ("hybrid", "bm25", "vector"):
        assert _found(tenant, "🦄", mode) == [], mode


def test_a_question_without_word_or_emoji_still_finds_nothing(tenant):
    _remember(tenant, PIZZA, "Really?", "Wait... what?")
    for query in ("?", "...", "🏽"):
        assert _found(tenant, query, "hybrid") == [], query


@pytest.mark.parametrize("text", ["I went running in the park.", "Mon café préféré est à Zürich.", "我在北京工作",
                                  "서울에서 살고 있어요.", "Rad\u200biohead", "🏽 alone", "❝quoted❞", "🄰 and 🈯",
                                  "▶ play ™ © ⬆ ℹ 1", "a\ufe0f", "▶\ufe0e"])
def test_a_text_without_an_emoji_is_read_as_before(ctx, text):
    """The keyword channel (0043's memex_text) and the local embedder (the text as sent) read a text
    without an emoji as they did: only a text that holds one is read anew."""
    from tests.test_migrations import MIGRATIONS

    before = (MIGRATIONS / "0043_hidden_and_attached_words.sql").read_text()
    before = before[before.index("CREATE OR REPLACE FUNCTION memex_text"):]
    before = before[:before.index("$f$;") + 4].replace("FUNCTION memex_text(", "FUNCTION pg_temp.memex_text_0043(")
    with psycopg.connect(ctx.db.dsn) as conn:
        conn.execute(before)
        old, new = conn.execute("SELECT pg_temp.memex_text_0043(%s), memex_text(%s)", (text, text)).fetchone()
    assert new == old
    assert not emoji.holds(text) and emoji.named(text) == text and emoji.words(text) == text


@pytest.mark.parametrize("text,words", [
    ("I love 🍕!", ["emoji1f355"]), ("🍣🍣", ["emoji1f363", "emoji1f363"]),
    ("👩🏽\u200d💻 café", ["emoji1f469x1f4bb"]), ("🇯🇵🇺🇸", ["emoji1f1efx1f1f5", "emoji1f1fax1f1f8"]),
    ("❤️ ❤ ❤\ufe0e", ["emoji2764"] * 3), ("🏳️\u200d🌈", ["emoji1f3f3x1f308"]),
    ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", ["emoji1f3f4xe0067xe0062xe0073xe0063xe0074xe007f"]),
    ("▶️ ⬆️ ©️ ™️ ℹ️ ▶ ™", ["emoji25b6", "emoji2b06", "emojia9", "emoji2122", "emoji2139"]),
    ("1️⃣ #️⃣ *⃣ 10", ["emoji31x20e3", "emoji23x20e3", "emoji2ax20e3"]), ("✓ ★", ["emoji2713", "emoji2605"]),
])
def test_the_database_reads_an_emoji_as_the_python_mirror_does(ctx, text, words):
    """memex_text's words for emoji are memex.emoji's, and the parser keeps each whole, as one lexeme."""
    with psycopg.connect(ctx.db.dsn) as conn:
        folded, lexemes = conn.execute("SELECT memex_text(%s), tsvector_to_array(to_tsvector('english', memex_text(%s)))",
                                       (text, text)).fetchone()
    assert [w for w in folded.split() if w.startswith("emoji")] == words
    assert [w for w in fold(text).split() if w.startswith("emoji")] == words
    assert set(words) <= set(lexemes)


def test_the_local_embedder_reads_an_emoji_as_its_name(ctx):
    """"pizza" is nearer "🍕" than it was, "🦄" further from a memory of another emoji (the probe:
    docs/measurements/emoji.md)."""
    vectors = ctx.embedder.embed(["pizza", PIZZA, "🦄", "🍕", "My favourite food is slice of pizza"])
    assert float(vectors[0] @ vectors[1]) > 0.5
    assert float(vectors[2] @ vectors[1]) < 0.2
    assert float(vectors[1] @ vectors[4]) == pytest.approx(1.0, abs=1e-5)
    assert emoji.name("👩🏽\u200d💻") == "woman personal computer" and emoji.name("🇯🇵") == "flag jp"


def test_an_emoji_newer_than_pythons_unicode_is_read_as_its_name(ctx):
    """Python 3.11's unicodedata is Unicode 14.0: 🫨 (15.0) and 🪉 (16.0) take their names from
    memex.emoji_names, not the unknown token of a character the embedder reads as sent."""
    assert emoji.name("🫨") == "shaking face" and emoji.name("🪉") == "harp"
    vectors = ctx.embedder.embed(["I'm 🫨 before the exam", "I'm shaking face before the exam"])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0, abs=1e-5)
