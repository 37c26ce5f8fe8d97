"""Migration 0060 (db/stored_reasons.py): the reasons stored before it that may hold another memory's words,
which that memory's erasure does not reach, as today's code writes them."""

from __future__ import annotations

import time
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb

from memex.db.erasure import REPLACED_ERASED
from memex.db.migrations import MigrationUnfinished, apply_migrations
from memex.db.stored_reasons import rewritten
from tests.test_erasure import _marker, _rows_mentioning

VERSION = "0060_stored_reasons"
FALLBACK_400 = "rules fallback, LLM judge unavailable (m refused the request: HTTP 400"


@pytest.mark.parametrize("reason, key, value, judge, decision, now", [
    # an LLM judge's own words (before its verdict was named by its action)
    ("unrelated to the user working at Stripe", "hobby", "tennis", "llm:m", "coexist", "LLM judge: coexist"),
    ("Notion replaces Stripe", "employer", "Notion", "llm:m", "supersede", "LLM judge: supersede"),
    ("a statement about the past does not replace a current value (she left Stripe for Notion)", "employer",
     "Acme", "llm:m", "keep_old", "a statement about the past does not replace a current value (LLM judge: supersede)"),
    # the forms memex writes under an LLM judge stay
    ("LLM judge: coexist", "hobby", "tennis", "llm:m", "coexist", "LLM judge: coexist"),
    ("no related memory", "hobby", "tennis", "llm:m", "coexist", "no related memory"),
    (REPLACED_ERASED, "city", "Berlin", "llm:m", "supersede", REPLACED_ERASED),
    ("employer holds one value: 'Notion' replaces 'Stripe'", "employer", "Notion", "llm:m", "supersede",
     "employer holds one value: 'Notion' replaces 'Stripe'"),
    ("rules under the lock after 3 changed tries: first value of hobby: 'tennis'", "hobby", "tennis", "llm:m",
     "coexist", "rules under the lock after 3 changed tries: first value of hobby: 'tennis'"),
    ("the user's opinion changed: 'great' replaces 'dull'", "opinion_about_jazz", "great", "llm:m", "supersede",
     "the user's opinion changed: 'great' replaces 'dull'"),
    ("employer 'Stripe' is over: the current value ends", "employer", "Stripe", "llm:m", "end",
     "employer 'Stripe' is over: the current value ends"),
    # the rules judge's own words are its, whatever they say, but the towns beside a region
    ("anything the rules said", "hobby", "tennis", "rules", "coexist", "anything the rules said"),
    ("hometown 'Italy' is a region, which 'Naples', 'Bari' may lie within: both kept", "hometown", "Italy", "rules",
     "coexist", "hometown 'Italy' is a region: the towns stored may lie within it, both kept"),
    ("hometown 'Italy' replaces the region 'Ohio', 'Texas'; 'Naples' may lie within it", "hometown", "Italy", "rules",
     "supersede", "hometown 'Italy' replaces the region 'Ohio', 'Texas': the towns stored may lie within it, kept"),
    ("rules under the lock after 3 changed tries: hometown 'Italy' is a region, which 'Naples' may lie within: "
     "both kept", "hometown", "Italy", "rules", "coexist",
     "rules under the lock after 3 changed tries: hometown 'Italy' is a region: the towns stored may lie within it, "
     "both kept"),
    # a fallback's error: its kind, the server's message gone, the rules' reason kept when it can be told
    (f"{FALLBACK_400} Invalid: [{{\"value\": \"Stripe\"}}]): first value of hobby: 'tennis'", "hobby", "tennis",
     "llm:m", "coexist", f"{FALLBACK_400}): first value of hobby: 'tennis'"),
    ("rules fallback, LLM judge unavailable (m: no usable answer after 3 attempts; last: HTTP 500 echo: Stripe): "
     "employer holds one value: 'Notion' replaces 'Stripe'", "employer", "Notion", "llm:m", "supersede",
     "rules fallback, LLM judge unavailable (m: no usable answer after 3 attempts; last: HTTP 500): "
     "employer holds one value: 'Notion' replaces 'Stripe'"),
    (f"{FALLBACK_400} {'Stripe ' * 60}: first value of hobby: 'tennis'", "hobby", "tennis", "llm:m", "coexist",
     f"{FALLBACK_400}): first value of hobby: 'tennis'"),  # the message cut at 300 characters, no ")"
    (f"{FALLBACK_400} [hobby: Stripe]): first value of hobby: 'tennis'", "hobby", "tennis", "llm:m", "coexist",
     f"{FALLBACK_400}): first value of hobby: 'tennis'"),
    (f"{FALLBACK_400} Stripe): the user's opinion changed: 'great' replaces 'dull'", "opinion_about_jazz", "great",
     "llm:m", "supersede", f"{FALLBACK_400}): the user's opinion changed: 'great' replaces 'dull'"),
    (f"{FALLBACK_400} Stripe): something else", "hobby", "tennis", "llm:m", "coexist", f"{FALLBACK_400})"),
    ("rules fallback, LLM judge unavailable (m: no usable answer after 3 attempts; last: APITimeoutError): "
     "first value of hobby: 'tennis'", "hobby", "tennis", "llm:m", "coexist",
     "rules fallback, LLM judge unavailable (m: no usable answer after 3 attempts; last: APITimeoutError): "
     "first value of hobby: 'tennis'"),
])
def test_a_reason_is_written_as_today_and_again_unchanged(reason, key, value, judge, decision, now):
    assert rewritten(reason, key, value, judge, decision) == now
    assert rewritten(now, key, value, judge, decision) == now


def _reason(conn, tenant, memory_id: str) -> str:
    return conn.execute("SELECT metadata->>'reason' FROM memories WHERE tenant_id = %s AND id = %s",
                        (tenant.id, memory_id)).fetchone()[0]


def _migrate(conn, ctx, until: float | None = None) -> list[str]:
    conn.execute("DELETE FROM schema_migrations WHERE version = %s", (VERSION,))
    return apply_migrations(conn, ctx.settings.embedding_dim, until=until)


def test_the_reasons_stored_before_0060_keep_no_copy_of_a_memory_past_its_erasure(ctx, tenant):
    """What revV found: a memory's reason written before this version names another memory it is not linked
    to (an LLM judge's own words on a coexist, the town a region was kept beside, a 400's body echoing the
    prompt in a rules fallback), and after that memory's erasure the copy stayed. 0060 rewrites them, user by
    user (out of time after the first, it continues on the next run), and again changes nothing; the erasure
    of the session that said the employer and the town then leaves them in no table."""
    employer, town = _marker(), _marker().capitalize()
    assert tenant.turn(f"I work at {employer.capitalize()}. I grew up in {town}.", session="said").status_code == 201
    for said in ("I play tennis.", "I have a dog named Rex.", "im from italy originally"):
        assert tenant.turn(said, session="other").status_code == 201
    other_user = f"u-{uuid.uuid4().hex[:8]}"
    assert tenant.turn("I play chess.", user=other_user).status_code == 201
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        facts = {r[1]: r for r in conn.execute(
            "SELECT id, value, key, user_id FROM memories WHERE tenant_id = %s AND memory_type = 'semantic'",
            (tenant.id,))}
        tennis, rex, italy, chess = facts["tennis"], facts["Rex"], facts["Italy"], facts["chess"]
        stored = {  # as versions before this one wrote them
            tennis[0]: ("coexist", "llm:m", f"unrelated to the user working at {employer.capitalize()}"),
            rex[0]: ("coexist", "llm:m", f"{FALLBACK_400} {{\"messages\": \"{employer}\"}} is invalid): "
                                         f"first value of {rex[2]}: 'Rex'"),
            italy[0]: ("coexist", "rules", f"hometown 'Italy' is a region, which '{town}' may lie within: both kept"),
            chess[0]: ("coexist", "llm:m", "chess is a new hobby"),
        }
        for memory_id, (decision, judge, reason) in stored.items():
            conn.execute("UPDATE memories SET metadata = metadata || %s WHERE tenant_id = %s AND id = %s",
                         (Jsonb({"decision": decision, "judge": judge, "reason": reason}), tenant.id, memory_id))
        with pytest.raises(MigrationUnfinished, match=VERSION):
            _migrate(conn, ctx, until=time.monotonic())
        assert apply_migrations(conn, ctx.settings.embedding_dim) == [VERSION]
        now = {memory_id: _reason(conn, tenant, memory_id) for memory_id in stored}
        assert now == {tennis[0]: "LLM judge: coexist", rex[0]: f"{FALLBACK_400}): first value of {rex[2]}: 'Rex'",
                       italy[0]: "hometown 'Italy' is a region: the towns stored may lie within it, both kept",
                       chess[0]: "LLM judge: coexist"}
        assert _migrate(conn, ctx) == [VERSION]
        assert {memory_id: _reason(conn, tenant, memory_id) for memory_id in stored} == now
    assert tenant.delete(f"/v1/sessions/said?user_id={tenant.user}").status_code == 200
    assert _rows_mentioning(ctx, employer, employer.capitalize(), town) == {}
