"""A value replaced, then corrected or denied, within one turn (several messages, or one message) or one
import line: what ends current, the chain (supersedes, validity) whole, nothing of the wrong value left
current; and the same turn's worker messages delivered twice, or the turn extracted again, write nothing more."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest

from infra.local.lambda_context import LocalLambdaContext
from infra.local.poller import drain, sqs_event
from infra.local.runtime import function_module
from memex import dedupe, pipeline
from memex.ingest import ingest_turn
from memex.db import turns as turn_rows
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


def _dedupe_key_as_it_was(turn: dict, candidate) -> str:
    """The dedupe key as pipeline made it one candidate at a time, every value said current looked for again
    for each end: the keys memories were written under, which a redelivery must find."""
    key = f"candidate:{turn['id']}:{candidate.key}:{candidate.value.casefold()}"
    if candidate.historical and any(not c.get("historical") and c["value"].casefold() == candidate.value.casefold()
                                    and pipeline._stored(c).key == candidate.key for c in turn["candidates"] or []):
        return f"{key}:over"
    return key


def _candidate(key: str, value: str, historical: bool = False, subject: str = "user") -> dict:
    return {"type": "fact", "key": key, "value": value, "content": f"{subject} {key} {value}", "confidence": 0.9,
            "importance": 0.5, "source_message_id": None, "subject": subject, "historical": historical}


def test_a_turns_dedupe_keys_are_the_ones_its_memories_were_written_under():
    """Made once for the turn, the keys are byte for byte those made one candidate at a time: an end of a
    value the turn said current (in another case, or under an alias stored before migration 0033) is `:over`,
    an end of one it did not say, another person's, or another key's, is not."""
    turn = {"id": "t_1", "candidates": [
        _candidate("diet", "Vegan"),  # an alias of dietary_restriction
        _candidate("dietary_restriction", "vegan", historical=True),
        _candidate("dietary_restriction", "vegetarian", historical=True),
        _candidate("city", "Lisbon"), _candidate("city", "LISBON", historical=True),
        _candidate("city", "Porto", historical=True),
        _candidate("melanie_city", "Lisbon", historical=True, subject="Melanie"),
        _candidate("employer", "Lisbon", historical=True),
        _candidate("city", "Lisbon"),  # said twice: the same key twice
    ]}
    keyed = pipeline._with_dedupe_keys(turn)
    assert [c for c, _ in keyed] == [pipeline._stored(c) for c in turn["candidates"]]
    assert [key for _, key in keyed] == [_dedupe_key_as_it_was(turn, c) for c, _ in keyed]
    assert sum(key.endswith(":over") for _, key in keyed) == 2


def test_a_value_is_named_in_its_dedupe_key_by_itself_up_to_the_bound_and_by_its_digest_past_it():
    """Up to dedupe.VALUE_BYTES of casefolded UTF-8 the key holds the value, as every key written before; past
    them its digest, casefolded first (a value said again in another case is the same value)."""
    at_bound = "É" * (dedupe.VALUE_BYTES // 2)
    turn = {"id": "t_1", "candidates": [_candidate("favorite_song", at_bound), _candidate("favorite_song", at_bound + "a"),
                                        _candidate("favorite_song", (at_bound + "A").lower(), historical=True)]}
    keyed = [key for _, key in pipeline._with_dedupe_keys(turn)]
    digest = hashlib.sha256((at_bound + "a").casefold().encode()).hexdigest()
    assert keyed == [_dedupe_key_as_it_was(turn, pipeline._stored(turn["candidates"][0])),
                     f"candidate:t_1:favorite_song:sha256:{digest}", f"candidate:t_1:favorite_song:sha256:{digest}:over"]


class _Passes(list):
    """A turn's stored candidates, counting the passes over them."""

    def __init__(self, items):
        super().__init__(items)
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        return super().__iter__()


def test_a_turn_of_many_ends_is_read_through_once(ctx, tenant, monkeypatch):
    """Each end's dedupe key went through every candidate of its turn for the value said current, and the rules
    path made each key twice: a turn of n ends took 2n + 1 passes over its n candidates (61 for 30), its cost
    growing as n². Now one."""
    lost = dataclasses.replace(ctx, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, extraction_queue_url=ctx.settings.extraction_queue_url + "-missing")))
    turn_id = ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", messages=[
        {"role": "user", "content": "I have lived in many cities."}]), wait=False)["turn_id"]
    ends = [_candidate("city", f"City {n}", historical=True) for n in range(30)]
    with ctx.db.transaction() as conn:
        turn_rows.store_many_candidates(conn, tenant.id, [(turn_id, ends)])
    lock_turns, locked = turn_rows.lock_turns, []

    def counted(conn, tenant_id, turn_ids):
        turns = lock_turns(conn, tenant_id, turn_ids)
        for turn in turns.values():
            turn["candidates"] = _Passes(turn["candidates"])
            locked.append(turn["candidates"])
        return turns

    monkeypatch.setattr(turn_rows, "lock_turns", counted)
    pipeline.resolve(ctx, SupersessionJob(tenant.id, tenant.user, turn_id))
    assert [c.passes for c in locked] == [1]
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"


def test_a_value_too_long_for_a_dedupe_key_is_written_once_whatever_its_turn_is_delivered_again(ctx, tenant, runtime):
    """A favourite song of 950 varied Han letters (2,850 bytes, no compression of a b-tree entry brings them
    under the 2,704 it may take): its turn is processed at its first delivery (a dedupe key holding the
    value was refused by memories_dedupe, and the turn failed at every delivery), and its messages
    delivered again, or the turn extracted again, write nothing more."""
    drain(runtime.pollers, timeout=120)  # nothing of earlier tests left on the queues
    song = "".join(chr(c) for c in random.Random(950).choices(range(0x4E00, 0xA000), k=950))
    said = tenant.turn(f"My favourite song is {song}.", timestamp="2026-03-02T09:00:00Z")
    assert (said.status_code, said.json()["status"]) == (201, "processed")
    turn_id = said.json()["turn_id"]
    once = _state(ctx, tenant.id, tenant.user)
    assert [(key, value, dedupe_key) for _, kind, key, value, *_, dedupe_key in once[0] if kind == "semantic"] == [
        ("favorite_song", song, f"candidate:{turn_id}:favorite_song:sha256:{hashlib.sha256(song.encode()).hexdigest()}")]
    _deliver("extract_worker", "memex-extraction", runtime, [ExtractionJob(tenant.id, turn_id).to_json()])
    _deliver("supersede_worker", "memex-supersession", runtime,
             [SupersessionJob(tenant.id, tenant.user, turn_id).to_json()])
    drain(runtime.pollers, timeout=120)
    assert _state(ctx, tenant.id, tenant.user) == once
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn_id], again=True))
    assert _state(ctx, tenant.id, tenant.user) == once


@pytest.mark.parametrize("said", ["My favourite {words} is Alien.", "I think {words} is great."],
                         ids=["favourite", "opinion"])
def test_a_key_made_of_more_words_than_a_key_holds_files_nothing_and_its_turn_is_processed(tenant, said):
    """The offline rules build a favourite's or an opinion's key from the words said: 960 Han letters made
    a 2,889-byte key, refused by memories_dedupe (and the user's keys' indexes), and the turn failed at every
    delivery. A key past jobs.KEY_MAX_CHARS (the LLM path's bound) names no kind of fact: nothing is filed
    under it, and the turn and its message are stored."""
    words = "".join(chr(c) for c in random.Random(960).choices(range(0x4E00, 0xA000), k=960))
    answer = tenant.turn(said.format(words=words) + " I live in Lisbon.", timestamp="2026-03-02T09:00:00Z")
    assert (answer.status_code, answer.json()["status"]) == (201, "processed")
    facts = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert [(m["key"], m["value"]) for m in facts if m["memory_type"] == "semantic"] == [("city", "Lisbon")]
    assert all(len(m["key"] or "") <= 64 for m in facts)


def test_a_key_past_the_bound_stored_on_a_turn_by_an_earlier_version_is_no_fact_and_the_turn_processes(ctx, tenant):
    """The review of the key's bound (revM): an earlier version extracted the turn and stored its candidates,
    one under a key of 960 Han letters, and failed at its write; delivered again after the upgrade, the
    stored candidates are resolved without extracting again. The long key is no fact's, and the turn's
    other fact is written (it failed with the long one's, at every delivery)."""
    words = "".join(chr(c) for c in random.Random(960).choices(range(0x4E00, 0xA000), k=960))
    answer = tenant.turn(f"My favourite {words} is Alien. I live in Lisbon.", wait=False,
                         timestamp="2026-03-02T09:00:00Z")
    turn_id = answer.json()["turn_id"]
    stored = [{"type": "preference", "key": f"favorite_{words}", "value": "Alien", "subject": "user",
               "content": "The user's favourite is Alien.", "confidence": 0.8, "importance": 0.7,
               "source_message_id": None, "historical": False},
              {"type": "fact", "key": "city", "value": "Lisbon", "content": "The user lives in Lisbon.",
               "confidence": 0.8, "importance": 0.7, "source_message_id": None, "historical": False,
               "subject": "user"}]
    with ctx.db.transaction() as conn:
        turn_rows.store_many_candidates(conn, tenant.id, [(turn_id, stored)])
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn_id]))
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"
    facts = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert [(m["key"], m["value"]) for m in facts if m["memory_type"] == "semantic"] == [("city", "Lisbon")]
