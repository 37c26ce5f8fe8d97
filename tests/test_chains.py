"""A question about a chain of values ranks the chain's member that answers it first: the value before
a named one, the one before the current one, the first of a kind, the fact that began a named value;
a question not about a chain is answered as it was without the rule."""

from __future__ import annotations

import dataclasses
import random
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from memex.db import history, tenants
from memex.db import memories as memory_rows
from memex.retrieval import chains
from memex_edge.context import build_context
from tests.conftest import api_client, database_of_its_own

# Three employers and three cities, each value replacing the one before (the offline rules' phrasings).
LIFE = (("I work at Stripe.", "2026-01-05T09:00:00Z"), ("I live in Paris.", "2026-01-06T09:00:00Z"),
        ("I work at Notion now.", "2026-03-02T09:00:00Z"), ("I moved to Berlin this weekend.", "2026-04-11T09:00:00Z"),
        ("I now work at Figma.", "2026-06-01T09:00:00Z"), ("We just moved to Lisbon.", "2026-08-15T09:00:00Z"))


def _life(tenant) -> None:
    for i, (said, when) in enumerate(LIFE):
        tenant.turn(said, session=f"s{i}", timestamp=when)


@pytest.mark.parametrize("question, key, value, kind", [
    ("where did she work before Notion?", "employer", "Stripe", "before"),
    ("Where did I work before Figma?", "employer", "Notion", "before"),
    ("where did the user work prior to joining Figma?", "employer", "Notion", "before"),
    ("where did I live before moving to Lisbon?", "city", "Berlin", "before"),
    ("Which city did she live in before Berlin?", "city", "Paris", "before"),
    ("What was my first job?", "employer", "Stripe", "first"),
    ("what was the first city she lived in?", "city", "Paris", "first"),
])
def test_a_question_about_a_history_ranks_the_member_that_answers_it_first(tenant, question, key, value, kind):
    _life(tenant)
    results = tenant.search(question)
    first = results[0]
    assert (first["key"], first["value"]) == (key, value), (question, [r["content"] for r in results])
    assert first["score_parts"]["chain"] == kind
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


@pytest.mark.parametrize("question, key, value, when", [
    ("when did she move to Berlin?", "city", "Berlin", "2026-04-11T09:00:00Z"),
    ("When did I start at Notion?", "employer", "Notion", "2026-03-02T09:00:00Z"),
])
def test_when_a_named_value_began_is_answered_by_the_fact_that_began_it_with_its_date(tenant, question, key, value,
                                                                                      when):
    """Not the current city's fact, which current-first lifts above the move's line that a later move
    made stale."""
    _life(tenant)
    results = tenant.search(question)
    first = results[0]
    assert (first["key"], first["value"], first["valid_from"]) == (key, value, when), [r["content"] for r in results]
    assert first["score_parts"]["chain"] == "began"


def test_a_question_not_about_a_chain_is_answered_as_without_the_rule(ctx, tenant):
    _life(tenant)
    tenant.turn("My dog is called Biscuit.", session="s9", timestamp="2026-09-01T09:00:00Z")

    def ranked(question: str, **changes) -> list[tuple[str, float]]:
        with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
            response = client.post("/v1/search", json={"user_id": tenant.user, "query": question},
                                   headers=tenant.headers)
        assert response.status_code == 200, response.text
        return [(r["id"], r["score"]) for r in response.json()["results"]]

    for question in ("where does she work?", "Where do I live now?", "what is my dog's name?",
                     "When did I get my dog?", "what happened before the weekend?"):
        assert ranked(question) == ranked(question, search_chains=False), question
    work = tenant.search("where does she work?")
    assert work[0]["value"] == "Figma" and not any("chain" in r["score_parts"] for r in work)


def test_another_user_s_chain_is_never_read(tenant):
    _life(tenant)
    other = f"{tenant.user}-other"
    tenant.turn("I work at Canva.", session="o1", timestamp="2026-01-01T09:00:00Z", user=other)
    tenant.turn("I work at Notion now.", session="o2", timestamp="2026-02-01T09:00:00Z", user=other)
    results = tenant.search("where did she work before Notion?")
    assert results[0]["value"] == "Stripe"
    assert "Canva" not in " ".join(r["content"] for r in results)


def test_as_of_reads_the_chain_as_it_stood(tenant):
    """Before Figma was said, the job before the current one (Notion) was Stripe, and Figma is no answer."""
    _life(tenant)
    results = tenant.search("where did she work before Notion?", as_of="2026-05-01T00:00:00Z")
    assert results[0]["value"] == "Stripe", [r["content"] for r in results]
    assert not any("Figma" in r["content"] for r in results)


@pytest.mark.parametrize("question, kind, value", [
    ("where did she work before Shopify?", "before", "shopify"),
    ("where did I live before moving to Dublin?", "before", "dublin"),
    ("what was my job before I became a nurse?", "before", "nurse"),
    ("Where was she prior to joining Notion?", "before", "notion"),
    ("What was her first job?", "first", None),
    ("what was my very first dog's name?", "first", None),
    ("when did she move to Lyon?", "began", None),
])
def test_what_a_question_asks_of_a_chain(question, kind, value):
    asking = chains.asked(question)
    assert asking is not None and (asking.kind, asking.value) == (kind, value)


@pytest.mark.parametrize("question, asks", [
    ("where does she work?", None), ("what was her previous job?", None), ("What did she do before August 3?", None),
    ("When did she first meet Sam?", ("began", None)), ("Was it the first time she went there?", None),
    ("What did I say yesterday?", None),
])
def test_a_question_that_asks_nothing_of_a_chain_s_order(question, asks):
    """Nothing before a value or first of a kind: a date is no value, and "first" in a question about
    when asks when something began."""
    asking = chains.asked(question)
    assert (None if asking is None else (asking.kind, asking.value)) == asks


# The statement history.send_chain_facts sent before migration 0052, which tested each of the user's
# facts (with where each stands in its key's history, ties broken as its history lists them, as it orders them
# since): what the one read through indexes must return, row for row.
_EACH_FACT = """WITH facts AS (
        SELECT o.tenant_id, o.id, o.key, o.value, o.content, o.valid_from, o.holds_from, o.valid_to, o.importance,
               o.agent_id, o.session_id, o.subject, o.memory_type, o.metadata, o.created_at FROM memories o
        WHERE o.tenant_id = %(t)s AND o.user_id = %(u)s AND o.memory_type = 'semantic'
          AND o.value IS NOT NULL AND (%(at)s::timestamptz IS NULL OR o.valid_from <= %(at)s)
    ),
    named AS (
        SELECT f.id FROM facts f, unnest(%(texts)s::text[]) x(text)
        WHERE strpos(lower(f.value), x.text) > 0 OR strpos(x.text, lower(f.value)) > 0
    )
    SELECT f.id, f.key, f.value, f.content, f.valid_from,
           CASE WHEN f.valid_to <= f.valid_from THEN coalesce(f.holds_from, f.valid_from) ELSE f.valid_from END
             AS stands, f.valid_to, f.importance, f.agent_id,
           f.session_id, f.subject, f.memory_type, f.metadata, f.metadata->>'decision' AS decision,
           coalesce((SELECT array_agg(l.replaced_id ORDER BY l.replaced_id) FROM memory_links l
                     WHERE l.tenant_id = f.tenant_id AND l.memory_id = f.id), '{}') AS replaced,
           EXISTS (SELECT 1 FROM memory_links l JOIN memories n ON n.tenant_id = l.tenant_id AND n.id = l.memory_id
                   WHERE l.tenant_id = f.tenant_id AND l.replaced_id = f.id
                     AND (%(at)s::timestamptz IS NULL OR n.valid_from <= %(at)s)) AS followed,
           %(words)s <> '' AND f.key IS NOT NULL AND to_tsvector('english', memex_text(replace(f.key, '_', ' ')))
             @@ to_tsquery('english', %(words)s) AS by_key
    FROM facts f
    WHERE f.id IN (SELECT id FROM named)
       OR %(words)s <> '' AND f.key IS NOT NULL AND to_tsvector('english', memex_text(replace(f.key, '_', ' ')))
          @@ to_tsquery('english', %(words)s)
       OR f.id IN (SELECT l.replaced_id FROM memory_links l JOIN named n ON l.memory_id = n.id WHERE l.tenant_id = %(t)s)
    ORDER BY stands, f.valid_to NULLS LAST, f.created_at, f.id"""

# Values whose parts meet one another often: a random text over these letters holds some and is held in others.
_LETTERS = "abAB .é'%_\\"
# Letters of values longer than the first letters history.send_chain_facts reads them by (16), whose
# beginnings meet more often still; and a value too long for a b-tree entry: 750 Han letters, 3,000
# bytes, varied, so that no compression of the entry brings it under the 2,704 bytes it may take.
_LONG_LETTERS = "abé"
_SONG = "".join(chr(0x20000 + i * 7919 % 40000) for i in range(750))
_VALUES = ["Shopify", "shopify inc", "Senior engineer at Shopify", "Dublin", "dublin", "ork", "work", "", "a", "ab",
           "Zürich", "ZÜRICH", "St. John's", "50%", "under_score", "back\\slash", "the lake", "hiking", "Hiking!",
           "When did we talk about hiking and the lake?", "aaa", "aa", "naïve café", "日本", "東京", _SONG,
           "a" * 16, "a" * 17, "a" * 40]
_TEXTS = ["", "a", "aa", "aaaa", "ork", "shopify", "shop", "dublin", "when did we talk about hiking and the lake?",
          "zürich", "zurich", "50%", "%", "_", "\\", "st. john's", "senior engineer at shopify inc", "café", "東京",
          "i moved to dublin from zürich after working at shopify inc as a senior engineer at shopify",
          "a" * 16, "a" * 17, "a" * 100, "a" * 16 + "b", "b" + "a" * 30 + "b", _SONG, f"my favourite song is {_SONG}!",
          _SONG[:48], _SONG[:48] + "!", _SONG[:20] * 30]


def _valued_user(ctx, rng) -> str:
    """A tenant of its own whose user "u" has facts with the values above and random ones over
    _LETTERS, under keys some words name, current, replaced (with links) or ended, said over two
    months; and beside them, the same values as episodic memories, facts without a value, and
    another user's facts."""
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    values = _VALUES + ["".join(rng.choice(_LETTERS) for _ in range(rng.randrange(7))) for _ in range(150)]
    values += ["".join(rng.choice(_LONG_LETTERS) for _ in range(rng.randrange(10, 40))) for _ in range(60)]
    keys = ["employer", "city", "sister_zoë_city", "likes", "job_title", None]
    rows = []
    for i, value in enumerate(values * 2):
        user, kind = ("u", "semantic") if i < len(values) else rng.choice((("u", "episodic"), ("v", "semantic")))
        rows.append({"id": f"m{i:03d}", "user_id": user, "memory_type": kind, "type": "fact",
                     "key": rng.choice(keys), "value": value if rng.random() < 0.95 else None,
                     "content": f"The user's value is {value}.", "active": rng.random() < 0.6,
                     "valid_from": start + timedelta(days=rng.randrange(60)),
                     "metadata": {"decision": "end"} if rng.random() < 0.1 else {},
                     "subject": rng.choice(("user", "user", "sam")),
                     "embedding": [1.0] + [0.0] * (ctx.settings.embedding_dim - 1)})
    with ctx.db.transaction() as conn:
        tenants.ensure_tenant(conn, tenant)
        memory_rows.insert_many(conn, tenant, rows)
        links = {(f"m{rng.randrange(len(values)):03d}", f"m{rng.randrange(len(values)):03d}") for _ in range(120)}
        for newer, older in links:
            if newer != older:
                conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES (%s, %s, %s)",
                             (tenant, newer, older))
    return tenant


def test_the_chain_facts_read_through_indexes_are_those_each_fact_tested_gave(ctx):
    """history.send_chain_facts reads the values holding a text and held in one through migration
    0052's indexes, the keys through the user's distinct keys: the same rows, columns and order as
    testing each fact gave (_EACH_FACT), for values inside texts and texts inside values, any case,
    punctuation, LIKE's and a pattern's special letters, accents and Han, the empty text and value,
    values and texts longer than the 16 letters the values are read by, one too long for a b-tree
    entry, facts replaced, ended and said later (as_of), other users' and episodic ones beside."""
    rng = random.Random(3)
    tenant = _valued_user(ctx, rng)
    conn = ctx.db.connection()
    texts = [[text] for text in _TEXTS] + [_TEXTS[5:9], _TEXTS[:3], _TEXTS[-6:]]
    texts += [["".join(rng.choice(_LETTERS) for _ in range(rng.randrange(12))).lower()] for _ in range(40)]
    texts += [["".join(rng.choice(_LONG_LETTERS) for _ in range(rng.randrange(20, 200)))] for _ in range(40)]
    checked = 0
    for i, asked in enumerate(texts):
        words = [[], ["employ"], ["cit", "zoe"], ["job", "the"]][i % 4]
        for as_of in (None, datetime(2026, 1, 20, tzinfo=timezone.utc)):
            found = history.send_chain_facts(conn, tenant, "u", asked, words, as_of)()
            expected = conn.execute(_EACH_FACT, {"t": tenant, "u": "u", "texts": [t.lower() for t in asked],
                                                 "words": " | ".join(f"{word}:*" for word in words), "at": as_of}).fetchall()
            assert found == expected, (asked, words, as_of)
            checked += len(expected)
    assert checked > 1000, checked


def _user_with(ctx, values: list[str]) -> str:
    """A tenant of its own whose user "u" has a fact with each of `values`, said an hour apart."""
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ctx.db.transaction() as conn:
        tenants.ensure_tenant(conn, tenant)
        memory_rows.insert_many(conn, tenant, [
            {"id": f"m{i:03d}", "user_id": "u", "memory_type": "semantic", "type": "fact", "key": "likes",
             "value": value, "content": f"The user likes {value}.", "valid_from": start + timedelta(hours=i),
             "embedding": [1.0] + [0.0] * (ctx.settings.embedding_dim - 1)} for i, value in enumerate(values)])
    ctx.db.connection().execute("ANALYZE memories")
    return tenant


def _rows_read(conn) -> int:
    """The memories' rows read so far in this transaction: by a scan of the table, and fetched
    through any of its indexes (counted under the index)."""
    return conn.execute(
        """SELECT pg_stat_get_xact_tuples_returned('memories'::regclass)
                  + pg_stat_get_xact_tuples_fetched('memories'::regclass)
                  + (SELECT sum(pg_stat_get_xact_tuples_fetched(indexrelid)) FROM pg_index
                     WHERE indrelid = 'memories'::regclass) AS n""").fetchone()["n"]


def _probes(conn) -> int:
    """The scans of the values' first letters (migration 0052) so far in this transaction: each probe
    of a neighbour, and each part looked up."""
    return conn.execute("SELECT pg_stat_get_xact_numscans('memories_user_value_starts'::regclass) AS n").fetchone()["n"]


def test_a_chain_question_reads_the_facts_it_names_not_each_of_the_users(ctx):
    """Asked when they talked of Shopify and Dublin, the statement reads the rows of the values the
    question holds and those holding it, a few probes beside: not each of the user's 600 facts (the
    statement before migration 0052 read them all). On a database of its own: the planner's choice
    between the indexes and the user's rows follows the table's statistics, and the rest of the suite's
    rows made it read the user's 603 facts three times (1,882 rows) where alone it read under 200."""
    with database_of_its_own(ctx, "chain_rows") as own:
        tenant = _user_with(own, ["Shopify", "Dublin", "a Dublin suburb"] + [f"value number {i}" for i in range(600)])
        conn = own.db.connection()
        with conn.transaction():
            before = _rows_read(conn)
            found = history.send_chain_facts(conn, tenant, "u", ["When did we talk about Shopify and Dublin?"], [])()
            read = _rows_read(conn) - before
    assert [row["value"] for row in found] == ["Shopify", "Dublin"]
    assert read < 200, read


_SHORT_VALUES = ["Twitter/X", "X", "AI-first startup", "an AI lab", "AI, Inc.", "C#/.NET", "C#", "Python and R",
                 "Python, R", "NY-based agency", "Brooklyn, NY", "the UK", "UK.", "(UK) office", "Plan B", "Spain", "taxi"]


@pytest.mark.parametrize("question, named", [
    ("Where did I work before X?", {"Twitter/X", "X"}),
    ("What did I work on before AI?", {"AI-first startup", "an AI lab", "AI, Inc."}),
    ("What language did I use before C#?", {"C#/.NET", "C#"}),
    ("What did I use before R?", {"Python and R", "Python, R"}),
    ("Where did I live before NY?", {"NY-based agency", "Brooklyn, NY"}),
    ("Where did I live before the UK?", {"the UK", "UK.", "(UK) office"}),
    ("What was our plan before Plan B?", {"Plan B"}),
])
def test_a_text_of_one_or_two_letters_reads_every_value_the_caller_names(ctx, question, named):
    """A chain question whose text is of one or two letters ("b" of "before Plan B?", "uk", "c#") reads
    every value the caller names as holding it (chains._names: whole words, set off by any non-word
    character): a statement that read such a text as a word set off by spaces never read "Plan B",
    "AI-first", "(UK) office", "C#/.NET", "Python and R" nor "Twitter/X", and the chain went unanswered
    (edge10, reverted: review revN). Such a text reads each of the user's facts, as before it."""
    tenant = _user_with(ctx, _SHORT_VALUES)
    asking = chains.asked(question)
    assert {v for v in _SHORT_VALUES if chains._names(v.lower(), asking.value)} == named  # the table is the caller's
    with ctx.db.connection().transaction():
        rows = history.send_chain_facts(ctx.db.connection(), tenant, "u", chains.texts(question, asking), [])()
    assert named <= {row["value"] for row in rows}


@pytest.mark.parametrize("run", ["a", "ab"])
def test_a_long_periodic_question_costs_probes_in_proportion_to_its_length(ctx, run):
    """A 5,000- and a 10,000-letter question repeating one run, against values that begin with that
    run repeated 1 to 200 times: the values held in it are found by a bounded number of probes from
    each of its places (its windows of 16 letters, each taken once), not by growing a part from each
    place while some value begins with it (the square of its length: a 5,042-letter question ran past
    the statement timeout so). The same rows as testing each fact gives. On a database of its own, as the
    rows read above."""
    other = "b" if run == "a" else "c"
    values = [run * k + end for k in (1, 2, 7, 8, 9, 16, 17, 50, 200) for end in ("", other, "x")]
    with database_of_its_own(ctx, "chain_probes") as own:
        tenant = _user_with(own, values + [f"value number {i}" for i in range(300)])
        conn = own.db.connection()
        for length in (5_000, 10_000):
            question = "when did i tell you " + run * (length // len(run))
            with conn.transaction():
                probes, read = _probes(conn), _rows_read(conn)
                found = history.send_chain_facts(conn, tenant, "u", [question], [])()
                probes, read = _probes(conn) - probes, _rows_read(conn) - read
            expected = conn.execute(_EACH_FACT, {"t": tenant, "u": "u", "texts": [question], "words": "",
                                                 "at": None}).fetchall()
            assert found == expected
            assert {row["value"] for row in found} == {run * k for k in (1, 2, 7, 8, 9, 16, 17, 50, 200)}
            assert probes <= 2 * len(question) and read <= 2 * len(question), (length, probes, read)


def test_a_value_too_long_for_a_b_tree_entry_is_written_and_read_by_a_chain_question(tenant, ctx):
    """Favourite songs of 3,000 bytes (a b-tree entry holds 2,704): one the offline rules file from a
    turn, written at its first delivery (an index on the whole value refused it: the turn failed at
    every delivery), and one written directly, varied (no compression brings its entry under the
    limit); a question naming each, and one each names, reads it."""
    repeated = "𠮷野家" * 300
    said = tenant.turn(f"My favourite song is {repeated}.", timestamp="2026-03-02T09:00:00Z")
    assert (said.status_code, said.json()["status"]) == (201, "processed")
    with ctx.db.transaction() as conn:
        memory_rows.insert_many(conn, tenant.id, [
            {"id": "direct", "user_id": tenant.user, "memory_type": "semantic", "type": "fact", "key": "favorite_song",
             "value": _SONG, "content": "The user's favorite song is the long one.",
             "valid_from": datetime(2026, 3, 3, tzinfo=timezone.utc),
             "embedding": [1.0] + [0.0] * (ctx.settings.embedding_dim - 1)}])
    conn = ctx.db.connection()
    for song in (repeated, _SONG):
        for text in (f"when did i tell you my favourite song is {song}?", song[300:400]):
            found = history.send_chain_facts(conn, tenant.id, tenant.user, [text], [])()
            assert [(row["key"], row["value"]) for row in found] == [("favorite_song", song)], text[:40]
            assert len(song.encode()) == 3000
