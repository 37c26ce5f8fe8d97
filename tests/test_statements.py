"""A ranking statement (db/memories.py Statement) is sent with its placeholders numbered by memex,
once per text, rather than parsed by psycopg at each execution: the same values must reach the
same places, however often a name recurs and whatever literal % the text holds."""

from __future__ import annotations

from memex.db import memories as memory_rows

_RANKING = """SELECT v.id, v.similarity, now() AS valid_from, 0.5::real AS importance, v.content,
                     NULL::text AS speaker, 'user' AS subject, NULL::text AS turn_id, NULL::text AS message_id,
                     'semantic' AS memory_type
              FROM (VALUES (%(first)s, %(score)s::float8, %(first)s || ' at 100%%'),
                           (%(second)s, %(score)s::float8 / 2, 'a %% sign, and %%(first)s as text')
                   ) v(id, similarity, content)
              ORDER BY v.similarity DESC"""


def test_a_name_used_twice_and_a_literal_percent_reach_postgres_as_written(ctx):
    statement = memory_rows.Statement(_RANKING, {"first": "m1", "second": "m2", "score": 0.8}, "similarity")
    ranking = statement.run(ctx.db.connection())
    assert ranking.ranked == [("m1", 0.8), ("m2", 0.4)]
    assert ranking.found["m1"].content == "m1 at 100%"
    assert ranking.found["m2"].content == "a % sign, and %(first)s as text"


def test_the_same_text_sent_again_takes_new_values(ctx):
    conn = ctx.db.connection()
    for first, score in (("a", 0.3), ("b", 0.9)):
        ranking = memory_rows.Statement(_RANKING, {"first": first, "second": "z", "score": score}, "similarity").run(conn)
        assert ranking.ranked == [(first, score), ("z", score / 2)]
