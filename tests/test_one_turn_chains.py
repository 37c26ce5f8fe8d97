"""A value replaced, then corrected or denied, within one turn (several messages, or one message) or one
import line: what ends current, the chain (supersedes, validity) whole, nothing of the wrong value left
current; and the same turn's worker messages delivered twice, or the turn extracted again, write nothing more."""

from __future__ import annotations

import dataclasses

import pytest

from infra.local.lambda_context import LocalLambdaContext
from infra.local.poller import drain, sqs_event
from infra.local.runtime import function_module
from memex import pipeline
from memex.ingest import ingest_turn
from memex.jobs import ExtractionJob, SupersessionJob
from memex.models import TurnIn
from memex_edge.sqs import SqsPublisher
from tests.conftest import import_lines

VEGAN = [("vegetarian", False, None, "The user is vegetarian."), ("vegan", False, 0, "The user is vegan."),
         ("vegan", False, 1, "The user used to be vegan.")]
CASES = [
    # the diet said and denied in one turn: it ends, its denial its history, nothing current
    (["I'm vegetarian.", "I'm vegan now.", "I'm not vegan."], "dietary_restriction", VEGAN),
    (["I'm vegetarian. I'm vegan now. Actually I'm not vegan."], "dietary_restriction", VEGAN),
    (["I have a dog named Rex.", "Rex passed away last week."], "pet_dog_name",
     [("Rex", False, None, "The user's dog is named Rex."),
      ("Rex", False, 0, "The user used to have a dog named Rex.")]),
    (["I work at Acme.", "I left Acme."], "employer",
     [("Acme", False, None, "The user's employer is Acme."), ("Acme", False, 0, "The user used to work at Acme.")]),
    # the wrong value corrected in the turn that said it is never filed (extraction/offline/corrections.py)
    (["I work at Acme. I just started at Globex. Sorry, I meant Initech, not Globex."], "employer",
     [("Acme", False, None, "The user's employer is Acme."), ("Initech", True, 0, "The user's employer is Initech.")]),
    # the end said before the value said again is no end of it (said a turn before, it is its history)
    (["I used to live in Lisbon.", "I live in Lisbon again now."], "city",
     [("Lisbon", True, None, "The user lives in Lisbon.")]),
]


def _chain(tenant, user: str, key: str) -> list[tuple]:
    """The key's memories, oldest first: value, current, the one it supersedes (by position), content; and
    that only the current one has no end."""
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    memories = sorted((m for m in listed["memories"] if m["key"] == key), key=lambda m: m["created_at"])
    assert all((m["valid_to"] is None) == m["active"] for m in memories)
    at = {m["id"]: n for n, m in enumerate(memories)}
    return [(m["value"], m["active"], at.get(m["supersedes"]), m["content"]) for m in memories]


def _semantic_values(tenant, user: str) -> set[str]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    return {m["value"] for m in listed["memories"] if m["memory_type"] == "semantic"}


@pytest.mark.parametrize("said, key, chain", CASES)
def test_a_value_said_over_in_one_turn_leaves_the_chain_of_its_messages_said_one_turn_each(tenant, said, key, chain):
    """Before, the end of a value the turn said current was written under that value's dedupe key: never
    written, the vegan diet stayed current."""
    assert tenant.turn(*said, user="one", timestamp="2026-01-01T09:00:00Z").status_code == 201
    assert _chain(tenant, "one", key) == chain
    assert "Globex" not in _semantic_values(tenant, "one")
    if len(said) > 1 and chain[-1][1] is False:  # ended: as its messages said one turn each end it
        for day, text in enumerate(said, start=1):
            tenant.turn(text, user="each", timestamp=f"2026-01-0{day}T09:00:00Z")
        assert _chain(tenant, "each", key) == chain


def test_an_import_line_saying_a_value_over_leaves_its_chain(ctx, tenant, runtime, tmp_path):
    lines = [{"user_id": tenant.user, "session_id": "s1", "timestamp": f"2026-01-0{day}T09:00:00Z",
              "messages": [{"role": "user", "content": text} for text in said]}
             for day, (said, _, _) in enumerate(CASES[1:3], start=1)]
    import_lines(ctx, tenant, runtime, tmp_path, lines)
    for _, key, chain in CASES[1:3]:
        assert _chain(tenant, tenant.user, key) == chain


def _state(ctx, tenant_id: str, user: str) -> tuple[list[tuple], list[tuple]]:
    """Every memory of the user's, as stored (ids and dedupe keys too), and every link of their chains."""
    conn = ctx.db.connection()
    memories = conn.execute(
        """SELECT id, memory_type, key, value, content, active, valid_from, valid_to, dedupe_key FROM memories
           WHERE tenant_id = %s AND user_id = %s ORDER BY id""", (tenant_id, user)).fetchall()
    links = conn.execute(
        """SELECT l.memory_id, l.replaced_id FROM memory_links l JOIN memories m
           ON m.tenant_id = l.tenant_id AND m.id = l.memory_id
           WHERE l.tenant_id = %s AND m.user_id = %s ORDER BY 1, 2""", (tenant_id, user)).fetchall()
    return [tuple(m.values()) for m in memories], [tuple(link.values()) for link in links]


def _deliver(worker: str, queue: str, runtime, bodies: list[str]) -> None:
    records = sqs_event([{"MessageId": f"m{n}", "ReceiptHandle": f"rh{n}", "Body": body, "MD5OfBody": "",
                          "Attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000",
                                         **({"MessageGroupId": "g", "MessageDeduplicationId": f"m{n}"}
                                            if queue == "memex-supersession" else {})}}
                         for n, body in enumerate(bodies)], runtime.queues[queue]["arn"], "us-east-1")
    assert function_module(worker).handler(records, LocalLambdaContext(worker)) == {"batchItemFailures": []}


@pytest.mark.parametrize("turns", [
    [("s1", ["I'm vegetarian.", "I'm vegan now.", "I'm not vegan."])],
    [("s1", ["I work at Acme. I just started at Globex. Sorry, I meant Initech, not Globex."])],
    # the correction, and the denial, in the batch of the fact they name, in another session
    [("s1", ["I work at Acme."]), ("s2", ["Sorry, I meant Globex, not Acme."])],
    [("s1", ["I'm vegan."]), ("s2", ["I'm not vegan."])],
    [("s1", ["I have a dog named Rex."]), ("s1", ["Rex passed away last week."])],
])
def test_a_correction_applied_writes_nothing_more_when_its_messages_come_again_or_it_is_extracted_again(
        ctx, tenant, runtime, turns):
    """The extraction message of a batch whose correction (or denial, or death) is applied delivered twice
    before its supersession message, that one twice, both again once it is done, then the batch extracted
    again (a re-extraction job): no second link, no value current again, nothing written after the first
    supersession."""
    drain(runtime.pollers, timeout=120)  # nothing of earlier tests left on the queues
    # stored with no message queued: each delivery below is the test's
    lost = dataclasses.replace(ctx, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, extraction_queue_url=ctx.settings.extraction_queue_url + "-missing")))
    ids = [ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id=session,
                                               timestamp=f"2026-01-0{day}T09:00:00Z",
                                               messages=[{"role": "user", "content": text} for text in said]),
                       wait=False)["turn_id"] for day, (session, said) in enumerate(turns, start=1)]
    extraction = [ExtractionJob(tenant.id, i).to_json() for i in ids]
    supersession = [SupersessionJob(tenant.id, tenant.user, i).to_json() for i in ids]
    _deliver("extract_worker", "memex-extraction", runtime, extraction)
    _deliver("extract_worker", "memex-extraction", runtime, extraction)
    _deliver("supersede_worker", "memex-supersession", runtime, supersession)
    once = _state(ctx, tenant.id, tenant.user)
    assert once[1]  # something was replaced or ended: there is a chain to keep whole
    _deliver("supersede_worker", "memex-supersession", runtime, supersession)
    assert _state(ctx, tenant.id, tenant.user) == once
    _deliver("extract_worker", "memex-extraction", runtime, extraction)
    _deliver("supersede_worker", "memex-supersession", runtime, supersession)
    drain(runtime.pollers, timeout=120)  # what the workers published again
    assert _state(ctx, tenant.id, tenant.user) == once
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, ids, again=True))
    assert _state(ctx, tenant.id, tenant.user) == once
