"""The Python client (clients/python, `memex_client`), sync and async, over real HTTP: against the
local runtime served by uvicorn on loopback, and, for retries, against a loopback server that
answers what each test scripts."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import socket
import threading
import time
import uuid
from datetime import datetime, timezone
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memex import backfill
from memex_client import (
    APIConnectionError,
    APITimeoutError,
    AsyncMemexClient,
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    MemexClient,
    MemexError,
    NotFoundError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    UnexpectedResponseError,
)
from tests.conftest import refused_port, served

def run(coroutine):
    """Runs a coroutine on a loop of its own. Not asyncio.run: it leaves the main thread with no
    current event loop, which later tests' libraries (Mangum) expect to find."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


# Short backoffs keep the retry tests quick; Retry-After is honoured whatever these say.
QUICK = RetryPolicy(max_retries=3, backoff=0.01, max_backoff=0.05)


@pytest.fixture(scope="module")
def base_url(runtime):
    with served(runtime.asgi_app()) as url:
        yield url


@pytest.fixture
def client(base_url, tenant):
    with MemexClient(tenant.key, base_url) as memex:
        yield memex


def test_turn_search_recall_read_and_erase(client, tenant):
    turn = client.add_turn(tenant.user, "s1", [
        {"role": "user", "content": "I live in Lisbon and I work at Stripe.", "metadata": {"msg": "m-1"}},
        {"role": "assistant", "content": "Noted."},
    ], wait=True)
    assert turn.status == "processed" and turn.error is None
    facts = {m.key: m for m in turn.memories if m.memory_type == "semantic"}
    assert facts["city"].value == "Lisbon" and facts["employer"].value == "Stripe"
    assert facts["city"].sources[0].metadata == {"msg": "m-1"}
    assert facts["city"].sources[0].turn_id == turn.turn_id
    assert client.get_turn(turn.turn_id).status == "processed"

    found = client.search(tenant.user, "Lisbon", top_k=3, filters={"memory_type": "semantic"})
    assert found.results[0].id == facts["city"].id and found.query == "Lisbon"
    assert found.results[0].score == found.results[0].score_parts.score > 0

    recalled = client.recall(tenant.user, "where does the user live?", max_tokens=200)
    assert "Lisbon" in recalled.context and recalled.token_count <= 200
    assert facts["city"].id in {c.memory_id for c in recalled.citations}
    # a turn not processed yet is in its session's recall, its message cited without a memory id
    queued = client.add_turn(tenant.user, "s2", [{"role": "user", "content": "Book the dentist for Friday."}])
    recent = [c for c in client.recall(tenant.user, "anything to plan?", session_id="s2").citations
              if c.bucket == "recent"]
    assert [(c.turn_id, c.memory_id, c.snippet) for c in recent] == [(queued.turn_id, None, "Book the dentist for Friday.")]

    memory = client.get_memory(facts["city"].id)
    assert memory.content == facts["city"].content and memory.active
    assert [m.id for m in client.memory_history(memory.id).history] == [memory.id]
    before = client.count_memories(tenant.user)
    assert before == len([m for m in turn.memories if m.active])

    assert client.delete_memory(memory.id).deleted["memories"] == 1
    with pytest.raises(NotFoundError) as missing:
        client.get_memory(memory.id)
    assert (missing.value.status, missing.value.code) == (404, "not_found") and memory.id in missing.value.message
    assert client.count_memories(tenant.user) == before - 1

    assert client.delete_session("s1", user_id=tenant.user).deleted["turns"] == 1
    assert client.count_memories(tenant.user) == 0
    client.add_memory(tenant.user, "Prefers answers in bullet points", memory_type="procedural", importance=0.8)
    assert client.delete_user(tenant.user).deleted["memories"] == 1
    assert list(client.list_memories(tenant.user, include_inactive=True)) == []


def test_a_queued_turn_is_waited_for_until_the_workers_process_it(client, tenant, runtime):
    turn = client.add_turn(tenant.user, "s1", [{"role": "user", "content": "My dog is called Rex."}])
    assert turn.status == "queued" and turn.memories == []
    runtime.drain()
    processed = client.wait_for_turn(turn.turn_id, timeout=30, interval=0.1)
    assert processed.status == "processed" and any("Rex" in m.content for m in processed.memories)


def test_the_same_idempotency_key_answers_the_first_turn(client, tenant):
    first = client.add_turn(tenant.user, "s1", [{"role": "user", "content": "I live in Porto."}],
                            idempotency_key="turn-1", wait=True)
    again = client.add_turn(tenant.user, "s1", [{"role": "user", "content": "I live in Porto."}],
                            idempotency_key="turn-1", wait=True)
    assert again.turn_id == first.turn_id


def test_a_turn_sent_again_after_its_erasure_is_a_conflict_naming_it(client, tenant):
    """A retry of a turn whose session was erased since: ConflictError, its code `turn_erased`; nothing stored."""
    turn = [{"role": "user", "content": "I live in Porto."}]
    client.add_turn(tenant.user, "gone", turn, idempotency_key="turn-erased", wait=True)
    client.delete_session("gone", user_id=tenant.user)
    with pytest.raises(ConflictError) as erased:
        client.add_turn(tenant.user, "gone", turn, idempotency_key="turn-erased", wait=True)
    assert (erased.value.status, erased.value.code) == (409, "turn_erased")
    assert list(client.list_turns(tenant.user)) == []


def test_list_memories_follows_the_cursor_over_several_pages(client, tenant):
    stored = [client.add_memory(tenant.user, f"Note number {i} about gardening").id for i in range(5)]
    first = client.list_memories_page(tenant.user, limit=2)
    assert len(first.memories) == 2 and first.next_cursor is not None
    listed = [m.id for m in client.list_memories(tenant.user, page_size=2)]
    assert listed == list(reversed(stored))  # newest first, each once
    client.add_turn(tenant.user, "s1", [{"role": "user", "content": "I live in Lisbon."}], wait=True)
    client.add_turn(tenant.user, "s1", [{"role": "user", "content": "I moved to Porto."}], wait=True)
    every = list(client.list_memories(tenant.user, include_inactive=True, page_size=2))
    assert not all(m.active for m in every)  # Lisbon's fact, replaced
    assert client.count_memories(tenant.user, include_inactive=True) == len(every)
    assert client.count_memories(tenant.user) == len(list(client.list_memories(tenant.user))) < len(every)
    coached = [client.add_memory(tenant.user, f"Coach note {i}", agent_id="coach").id for i in range(3)]
    assert [m.id for m in client.list_memories(tenant.user, agent_id="coach", page_size=2)] == list(reversed(coached))


def test_list_memories_in_the_order_things_happened(client, tenant):
    for day in ("2026-03-01", "2026-01-01", "2026-02-01"):  # sent out of order
        client.add_turn(tenant.user, f"s{day}", [{"role": "user", "content": f"Note of {day}."}], wait=True,
                        timestamp=datetime.fromisoformat(day + "T10:00:00+00:00"))
    listed = list(client.list_memories(tenant.user, order="valid_from", page_size=1))
    assert [m.content for m in listed if m.memory_type == "episodic"] == [
        "Note of 2026-01-01.", "Note of 2026-02-01.", "Note of 2026-03-01."]
    assert [m.valid_from for m in listed] == sorted(m.valid_from for m in listed)
    assert [m.content for m in client.list_memories(tenant.user) if m.memory_type == "episodic"][0] == \
        "Note of 2026-02-01."  # the default: the latest written first


def test_session_messages_lists_one_users_session_in_the_order_it_was_said_page_by_page(client, tenant):
    """Zep's `memory.get(session_id)`: the conversation itself, not what was drawn from it."""
    said = [("2026-03-01T10:00:00Z", ["I live in Porto.", "Nice!"]), ("2026-03-01T09:00:00Z", ["Hi there."]),
            ("2026-03-02T08:00:00Z", ["I moved to Lisbon.", "Congrats.", "Thanks."])]
    for timestamp, contents in said:  # sent out of order: listed by when it was said
        client.add_turn(tenant.user, "s1", [{"role": "user" if i % 2 == 0 else "assistant", "content": c}
                                            for i, c in enumerate(contents)],
                        timestamp=datetime.fromisoformat(timestamp))
    client.add_turn(tenant.user, "s2", [{"role": "user", "content": "Another session."}])
    client.add_turn(f"{tenant.user}-x", "s1", [{"role": "user", "content": "Another user's s1."}])

    first = client.session_messages_page("s1", user_id=tenant.user, limit=2)
    assert [m.content for m in first.messages] == ["Hi there.", "I live in Porto."] and first.next_cursor
    listed = list(client.session_messages("s1", user_id=tenant.user, page_size=2))
    assert [m.content for m in listed] == ["Hi there.", "I live in Porto.", "Nice!", "I moved to Lisbon.",
                                          "Congrats.", "Thanks."]
    assert [(m.role, m.position) for m in listed[3:]] == [("user", 0), ("assistant", 1), ("user", 2)]
    assert all(m.model_extra == {} for m in listed)
    with pytest.raises(NotFoundError):
        client.session_messages_page("s3", user_id=tenant.user)
    with pytest.raises(InvalidInputError):
        client.session_messages_page("s1", user_id=tenant.user, cursor="bogus")


def test_list_sessions_lists_a_users_sessions_latest_begun_first_page_by_page(client, tenant):
    """Zep's `memory.list_sessions` of a user: what a support ticket asking "what do you remember
    about me?" starts from."""
    for session, timestamp in [("s1", "2026-03-01T10:00:00Z"), ("s2", "2026-03-03T10:00:00Z"),
                               ("s3", "2026-03-02T10:00:00Z"), ("s1", "2026-03-04T10:00:00Z")]:
        client.add_turn(tenant.user, session, [{"role": "user", "content": f"In {session}."}],
                        timestamp=datetime.fromisoformat(timestamp), agent_id="coach" if session != "s3" else None)
    first = client.list_sessions_page(tenant.user, limit=2)
    assert [s.session_id for s in first.sessions] == ["s2", "s3"] and first.next_cursor
    listed = list(client.list_sessions(tenant.user, page_size=2))
    assert [(s.session_id, s.turns, s.messages) for s in listed] == [("s2", 1, 1), ("s3", 1, 1), ("s1", 2, 2)]
    assert listed[2].last_at == datetime.fromisoformat("2026-03-04T10:00:00+00:00")
    assert all(s.model_extra == {} for s in listed)
    assert list(client.list_sessions(f"{tenant.user}-nobody")) == []
    coached = list(client.list_sessions(tenant.user, agent_id="coach", page_size=1))
    assert [s.session_id for s in coached] == ["s2", "s1"]
    with pytest.raises(InvalidInputError) as refused:
        client.list_sessions_page(tenant.user, cursor=first.next_cursor + "x")
    assert refused.value.field == "cursor"


def test_list_turns_gives_a_users_turns_as_they_were_sent_the_earliest_said_first(client, tenant):
    """A user's data out: everything they said, in order, with what it was sent with."""
    for session, timestamp, agent in [("s1", "2026-03-02T10:00:00+01:00", "coach"),
                                      ("s2", "2026-03-01T10:00:00Z", None), ("s1", "2026-03-03T10:00:00Z", None)]:
        client.add_turn(tenant.user, session, [{"role": "user", "content": f"In {session} at {timestamp}."}],
                        timestamp=datetime.fromisoformat(timestamp), agent_id=agent, metadata={"app": "cli"})
    first = client.list_turns_page(tenant.user, limit=2)
    assert [t.session_id for t in first.turns] == ["s2", "s1"] and first.next_cursor
    listed = list(client.list_turns(tenant.user, page_size=2))
    assert [(t.session_id, t.agent_id, t.utc_offset, t.metadata) for t in listed] == [
        ("s2", None, 0, {"app": "cli"}), ("s1", "coach", 60, {"app": "cli"}), ("s1", None, 0, {"app": "cli"})]
    assert listed[1].messages[0].content == "In s1 at 2026-03-02T10:00:00+01:00."
    assert listed[1].occurred_at == datetime.fromisoformat("2026-03-02T09:00:00+00:00")
    assert listed[0].idempotency_key.startswith("memex-client:")
    assert all(t.model_extra == {} and t.messages[0].model_extra == {} for t in listed)
    assert [t.agent_id for t in client.list_turns(tenant.user, agent_id="coach")] == ["coach"]
    assert [t.session_id for t in client.list_turns(tenant.user, session_id="s2")] == ["s2"]
    with pytest.raises(InvalidInputError) as refused:
        client.list_turns_page(tenant.user, session_id="s2", cursor=first.next_cursor)
    assert refused.value.field == "cursor"


def test_list_backfills_finds_a_job_whose_id_was_lost_page_by_page(client, tenant, ctx):
    jobs = [backfill.new_job("reembed", tenant.id, user_id=tenant.user) for _ in range(3)]
    jobs.append(backfill.new_job("reembed", tenant.id))
    for job in jobs:
        backfill.run_chunk(ctx, job)
    first = client.list_backfills_page(limit=2)
    assert len(first.backfills) == 2 and first.next_cursor
    listed = list(client.list_backfills(page_size=2))
    assert {b.backfill_id for b in listed} == {job.backfill_id for job in jobs} and len(listed) == len(jobs)
    assert [(b.created_at, b.backfill_id) for b in listed] == sorted(((b.created_at, b.backfill_id) for b in listed),
                                                                     reverse=True)
    assert listed[0] == client.get_backfill(listed[0].backfill_id)
    assert all(b.model_extra == {} for b in listed)
    mine = list(client.list_backfills(user_id=tenant.user, page_size=2))
    assert [b.backfill_id for b in mine] == [b.backfill_id for b in listed if b.user_id == tenant.user]
    assert len(mine) == 3
    with pytest.raises(InvalidInputError) as refused:
        client.list_backfills_page(user_id=tenant.user, cursor=first.next_cursor)
    assert refused.value.field == "cursor"


def test_an_id_with_a_slash_is_sent_as_one_segment_and_refused_by_name(client):
    # The client sends a%2Fb; the server splits the path at it and its router said a bare 404 "Not Found".
    with pytest.raises(InvalidInputError) as refused:
        list(client.list_memories("a/b"))
    assert (refused.value.status, refused.value.field) == (422, "path")
    assert refused.value.message.startswith("path: an id in /v1/users/a/b/memories holds '/' (sent as %2F)")


def test_the_service_errors_are_typed_with_its_code_message_and_field(client, base_url, tenant):
    with MemexClient("not-a-key", base_url) as stranger:
        with pytest.raises(AuthenticationError) as refused:
            stranger.count_memories(tenant.user)
    assert (refused.value.status, refused.value.code) == (401, "unauthorized")
    assert refused.value.body == {"error": {"code": "unauthorized", "message": refused.value.message}}

    with pytest.raises(InvalidInputError) as invalid:
        client.search(tenant.user, "anything", top_k=0)
    assert (invalid.value.status, invalid.value.code, invalid.value.field) == (422, "validation_error", "top_k")
    assert "greater than or equal to 1" in invalid.value.message

    with pytest.raises(InvalidInputError) as nested:
        client.add_turn(tenant.user, "s1", [{"role": "user", "content": "hi", "metadata": {"x": "a\x00b"}}])
    assert nested.value.field == "messages.0.metadata.x" and "NUL" in nested.value.message

    with pytest.raises(InvalidInputError) as cursor:
        client.list_memories_page(tenant.user, cursor="not-a-cursor")
    assert cursor.value.field == "cursor"

    with pytest.raises(NotFoundError):
        client.get_backfill("no-such-backfill")


def test_what_the_caller_wrote_is_what_an_error_names(client, base_url, tenant):
    """A new user's trial (qa6): a lone surrogate raised a bare UnicodeEncodeError from the JSON encoder, and
    list_memories(page_size=0) an error naming `limit`, a name the caller never wrote."""
    with pytest.raises(InvalidInputError) as surrogate:
        client.add_turn(tenant.user, "s1", [{"role": "user", "content": "a\ud800b"}])
    assert surrogate.value.field == "messages.0.content" and "unpaired surrogates" in surrogate.value.message
    iterators = [lambda memex: memex.list_memories(tenant.user, page_size=0),
                 lambda memex: memex.list_sessions(tenant.user, page_size=0),
                 lambda memex: memex.session_messages("s1", user_id=tenant.user, page_size=0),
                 lambda memex: memex.list_backfills(page_size=0)]
    for listing in iterators:
        with pytest.raises(InvalidInputError) as page_size:
            list(listing(client))
        assert page_size.value.field == "page_size", page_size.value.message
        assert page_size.value.message.startswith("page_size: ") and "limit" not in page_size.value.message

    async def main():
        async with AsyncMemexClient(tenant.key, base_url) as memex:
            refused = []
            for listing in iterators:
                try:
                    [item async for item in listing(memex)]
                except InvalidInputError as error:
                    refused.append(error.field)
            try:
                await memex.add_turn(tenant.user, "s1", [{"role": "user", "content": "a\ud800b"}])
            except InvalidInputError as error:
                refused.append(error.field)
            return refused

    assert run(main()) == ["page_size"] * 4 + ["messages.0.content"]


def test_key_and_address_come_from_the_environment(base_url, tenant, monkeypatch):
    monkeypatch.setenv("MEMEX_API_KEY", tenant.key)
    monkeypatch.setenv("MEMEX_BASE_URL", base_url)
    with MemexClient() as memex:
        assert memex.base_url.rstrip("/") == base_url
        assert memex.count_memories(tenant.user) == 0
        health = memex.health()
    assert health.status == "ok" and health.db == "ok"


def test_the_async_client_does_the_same_over_the_same_routes(base_url, tenant, ctx):
    async def main():
        async with AsyncMemexClient(tenant.key, base_url) as memex:
            turn = await memex.add_turn(tenant.user, "s1", [{"role": "user", "content": "I work at Notion."}],
                                        wait=True, metadata={"app": "async"})
            for i in range(3):
                await memex.add_memory(tenant.user, f"Async note {i}")
            listed = [m.id async for m in memex.list_memories(tenant.user, page_size=2)]
            sessions = [s.session_id async for s in memex.list_sessions(tenant.user, page_size=1)]
            sessions += [s.session_id async for s in memex.list_sessions(tenant.user, agent_id="coach")]
            said = [m.content async for m in memex.session_messages("s1", user_id=tenant.user, page_size=1)]
            said += [t.messages[0].content async for t in memex.list_turns(tenant.user, page_size=1)]
            jobs = [b.backfill_id async for b in memex.list_backfills(user_id=tenant.user, page_size=1)]
            sent = await memex.get_turn(turn.turn_id)
            found = await memex.search(tenant.user, "Notion")
            recalled = await memex.recall(tenant.user, "where does the user work?")
            count = await memex.count_memories(tenant.user)
            erased = await memex.delete_user(tenant.user)
            async with AsyncMemexClient("wrong", base_url) as stranger:
                try:
                    await stranger.count_memories(tenant.user)
                except AuthenticationError as error:
                    refused = error
            return turn, listed, sessions, said, jobs, sent, found, recalled, count, erased, refused

    job = backfill.new_job("reembed", tenant.id, user_id=tenant.user)
    backfill.run_chunk(ctx, job)
    turn, listed, sessions, said, jobs, sent, found, recalled, count, erased, refused = run(main())
    assert sessions == ["s1"] and said == ["I work at Notion."] * 2 and jobs == [job.backfill_id]
    assert (sent.user_id, sent.session_id, sent.agent_id, sent.metadata) == (tenant.user, "s1", None, {"app": "async"})
    assert sent.occurred_at == turn.occurred_at is not None
    employer = next(m for m in turn.memories if m.key == "employer")
    assert employer.value == "Notion" and employer.id in {hit.id for hit in found.results}
    assert "Notion" in recalled.context
    assert len(listed) == len(set(listed)) == count and count >= 3 + 1  # more than one page of 2
    assert erased.deleted["memories"] == len(listed) and refused.status == 401


def test_the_async_client_has_every_method_of_the_sync_one_with_its_parameters():
    def methods(cls):
        return {name: [(p.name, p.kind, p.default) for p in inspect.signature(member).parameters.values()]
                for name, member in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}

    sync, asynchronous = methods(MemexClient), methods(AsyncMemexClient)
    sync.pop("close"), asynchronous.pop("aclose")  # the one difference: how each is closed
    assert asynchronous == sync


class Scripted:
    """A loopback HTTP server answering each request with the next scripted (status, headers,
    body: sent as JSON, or as it is when bytes), then 200 `{"count": 7}`; it keeps what it received and when."""

    def __init__(self, *answers: tuple[int, dict[str, str], object]):
        self.answers = deque(answers)
        self.received: list[tuple[float, str, str, object]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                scripted.received.append((time.monotonic(), self.command, self.path, body))
                status, headers, answer = scripted.answers.popleft() if scripted.answers else (200, {}, {"count": 7})
                payload = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def scripted():
    servers = []

    def start(*answers):
        servers.append(Scripted(*answers))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


RATE_LIMITED = (429, {"retry-after": "1"}, {"error": {"code": "rate_limited", "message": "slow down"}})


def test_a_429_is_retried_after_its_retry_after(scripted):
    server = scripted(RATE_LIMITED)
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        assert memex.count_memories("alice") == 7
    (first, *_), (second, *_) = server.received
    assert len(server.received) == 2 and second - first >= 1.0  # the backoff alone would be 0.05 s


def test_the_async_client_retries_a_429_after_its_retry_after(scripted):
    server = scripted(RATE_LIMITED)

    async def main():
        async with AsyncMemexClient("k", server.url, retry_policy=QUICK) as memex:
            return await memex.count_memories("alice")

    assert run(main()) == 7
    (first, *_), (second, *_) = server.received
    assert len(server.received) == 2 and second - first >= 1.0


def test_retries_stop_after_max_retries_with_the_typed_error(scripted):
    limited = (429, {"retry-after": "0"}, {"error": {"code": "rate_limited", "message": "slow down"}})
    server = scripted(*[limited] * 5)
    with MemexClient("k", server.url, max_retries=2) as memex:
        with pytest.raises(RateLimitError) as error:
            memex.count_memories("alice")
    assert len(server.received) == 3 and error.value.code == "rate_limited" and error.value.retry_after == 0


def test_a_retry_after_past_the_policy_limit_is_raised_at_once(scripted):
    server = scripted((503, {"retry-after": "3600"}, {"error": {"code": "database_unavailable", "message": "later"}}))
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        with pytest.raises(ServerError) as error:
            memex.count_memories("alice")
    assert len(server.received) == 1 and error.value.retry_after == 3600 and error.value.status == 503


def test_a_5xx_is_retried_only_where_a_second_send_is_harmless(scripted):
    failed = (500, {}, {"error": {"code": "internal_error", "message": "internal error"}})
    server = scripted(failed, failed)
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        with pytest.raises(ServerError):
            memex.add_memory("alice", "a fact")  # no idempotency key on this route: sent once
        assert len(server.received) == 1
        assert memex.count_memories("alice") == 7  # a read: sent again
    assert len(server.received) == 3


def test_a_retried_turn_carries_the_same_idempotency_key(scripted):
    unavailable = (503, {}, {"error": {"code": "database_unavailable", "message": "later"}})
    server = scripted(unavailable, (202, {}, {"turn_id": "t-1", "status": "queued"}))
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        turn = memex.add_turn("alice", "s1", [{"role": "user", "content": "hello"}])
    assert turn.turn_id == "t-1" and turn.status == "queued"
    keys = [body["idempotency_key"] for _, _, _, body in server.received]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].startswith("memex-client:")


def test_a_service_that_cannot_be_reached_raises_a_connection_error_after_the_retries():
    with refused_port() as port:
        nowhere = f"http://127.0.0.1:{port}"
        with MemexClient("k", nowhere, retry_policy=QUICK) as memex:
            with pytest.raises(APIConnectionError, match=f"no answer from {re.escape(nowhere)} \\(ConnectError"):
                memex.health()


def test_a_read_timeout_names_the_limit_that_ran_out():
    # httpx's ReadTimeout has no text: the error read "no answer from … (ReadTimeout: )".
    with socket.socket() as silent:  # takes the connection (the kernel's backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = "http://127.0.0.1:%d" % silent.getsockname()[1]
        expected = f"no answer from {re.escape(address)} \\(ReadTimeout: read timed out after 0.2 s\\)"
        with MemexClient("k", address, timeout=0.2, retry_policy=RetryPolicy(max_retries=0)) as memex:
            with pytest.raises(APITimeoutError, match=expected):
                memex.health()

        async def health_async():
            async with AsyncMemexClient("k", address, timeout=0.2, retry_policy=RetryPolicy(max_retries=0)) as memex:
                await memex.health()

        with pytest.raises(APITimeoutError, match=expected):
            run(health_async())


def test_an_address_without_its_scheme_is_refused_at_once_naming_where_it_came_from(monkeypatch):
    # "localhost:8080" used to fail every request as a connection error, retried, naming no address.
    with pytest.raises(ValueError, match="base_url 'localhost:8080' is not an http:// or https:// address"):
        MemexClient("k", "localhost:8080")
    monkeypatch.setenv("MEMEX_BASE_URL", "127.0.0.1:8080")
    with pytest.raises(ValueError, match="MEMEX_BASE_URL '127.0.0.1:8080' is not"):
        AsyncMemexClient("k")


def test_arguments_the_api_does_not_take_are_refused_before_sending(scripted):
    server = scripted()
    with MemexClient("k", server.url) as memex:
        with pytest.raises(ValueError, match="role"):
            memex.add_turn("alice", "s1", [{"role": "narrator", "content": "hello"}])
        with pytest.raises(ValueError, match="usr_id"):
            memex.search("alice", "x", filters={"usr_id": "bob"})
        with pytest.raises(ValueError, match="JSON"):  # sent as null, it would change the data
            memex.add_memory("alice", "a fact", metadata={"ratio": float("nan")})
        with pytest.raises(ValueError, match="importance"):
            memex.add_memory("alice", "a fact", importance=float("inf"))
    assert server.received == []


def test_ids_are_sent_as_one_path_segment(scripted):
    server = scripted((200, {}, {"deleted": {"memories": 0, "turns": 0}}))
    with MemexClient("k", server.url) as memex:
        memex.delete_session("a:b@c+d", user_id="x+y@z")
    _, method, path, _ = server.received[0]
    assert (method, path) == ("DELETE", "/v1/sessions/a%3Ab%40c%2Bd?user_id=x%2By%40z")


def test_an_unknown_user_reads_as_empty(client):
    assert list(client.list_memories(f"nobody-{uuid.uuid4().hex[:6]}")) == []


def test_the_models_declare_every_field_the_service_sends(client, tenant):
    """A field the service added and the models lack would reach users untyped (in model_extra)."""
    from memex_client import Citation, Health, Memory, ScoreParts, SearchHit, Source, TurnResult

    def fields(model) -> set[str]:
        return set(model.model_fields)

    raw_turn = tenant.turn("I live in Lisbon and I work at Stripe.").json()
    assert set(raw_turn) <= fields(TurnResult) and {"turn_id", "status", "memories"} <= set(raw_turn)
    raw_memory = raw_turn["memories"][0]
    assert set(raw_memory) == fields(Memory) and set(raw_memory["sources"][0]) == fields(Source)
    hit = tenant.post("/v1/search", {"user_id": tenant.user, "query": "Lisbon"}).json()["results"][0]
    assert set(hit) == fields(SearchHit) and set(hit["score_parts"]) <= fields(ScoreParts)
    recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "Lisbon"}).json()
    assert set(recalled["citations"][0]) == fields(Citation)
    assert set(tenant.get("/health").json()) == fields(Health)
    # And what the client reads is all declared, nothing left over.
    assert client.get_memory(raw_memory["id"]).model_extra == {}


def test_health_answers_a_degraded_report_and_raises_on_a_proxy_503(scripted):
    report = {"status": "error", "db": "error: OperationalError", "queue": "ok", "degraded": ["db"]}
    server = scripted((503, {}, report), (503, {}, "<html>bad gateway</html>"))
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        health = memex.health()
        assert (health.status, health.db, health.degraded) == ("error", "error: OperationalError", ["db"])
        with pytest.raises(ServerError) as error:
            memex.health()
    assert error.value.status == 503 and error.value.code == "http_error" and len(server.received) == 2


def test_a_success_that_is_not_memexs_answer_is_a_memex_error_naming_the_address(scripted):
    """MEMEX_BASE_URL pointed at another server (a web app answering 200 with its page): the client
    raised json's JSONDecodeError, or pydantic's ValidationError for JSON of another shape, which no
    `except MemexError` catches and which never said where it had looked."""
    page = (200, {"content-type": "text/html"}, b"<html>welcome</html>")
    other = (200, {}, {"status": "up"})
    server = scripted(page, other, page)
    with MemexClient("k", server.url, retry_policy=QUICK) as memex:
        with pytest.raises(UnexpectedResponseError) as not_json:
            memex.count_memories("u1")
        with pytest.raises(UnexpectedResponseError) as not_shaped:
            memex.count_memories("u1")
    with pytest.raises(MemexError):
        run(_count_async(server.url))
    assert (not_json.value.status, not_json.value.code) == (200, "unexpected_response")
    assert not_json.value.message.startswith(f"{server.url}/v1/memories/count?user_id=u1 answered 200 with a body "
                                             "that is not JSON: is it a memex service's address")
    assert not_json.value.body == "<html>welcome</html>"
    assert "answered 200 with JSON that is not a Count" in not_shaped.value.message
    assert len(server.received) == 3  # none sent again: the answer came, and it is not memex's


async def _count_async(url: str) -> int:
    async with AsyncMemexClient("k", url, retry_policy=QUICK) as memex:
        return await memex.count_memories("u1")


def test_another_speakers_facts_are_theirs_and_filtered_by_subject(client, tenant):
    turn = client.add_turn(tenant.user, "s-speakers", [
        {"role": "user", "name": "Caroline", "content": "I work at Acme."},
        {"role": "user", "name": "Melanie", "content": "Nice! I work at Globex."},
    ], user_name="Caroline", wait=True)
    assert turn.status == "processed"
    subjects = {m.key: m.subject for m in turn.memories if m.memory_type == "semantic"}
    assert subjects == {"employer": "user", "melanie_employer": "Melanie"}
    hers = client.search(tenant.user, "where does Melanie work?", filters={"subject": "Melanie"})
    assert hers.results and {m.subject for m in hers.results} == {"Melanie"}


def test_a_search_hit_says_what_of_its_message_is_no_longer_current(client, tenant):
    client.add_turn(tenant.user, "s1", [{"role": "user", "content": "I live in Lisbon."}],
                    timestamp=datetime(2026, 1, 10, tzinfo=timezone.utc), wait=True)
    client.add_turn(tenant.user, "s2", [{"role": "user", "content": "We moved to Berlin."}],
                    timestamp=datetime(2026, 5, 2, tzinfo=timezone.utc), wait=True)
    hits = {hit.content: hit for hit in client.search(tenant.user, "Lisbon", top_k=10).results}
    assert hits["I live in Lisbon."].no_longer_current == ["Lisbon"]
    assert hits["I live in Lisbon."].model_extra == {}  # declared, not left over
    assert hits["We moved to Berlin."].no_longer_current == []


@pytest.mark.parametrize("asynchronous", [False, True])
def test_search_and_recall_as_of_a_date(base_url, tenant, asynchronous):
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-09-02T09:00:00Z")
    may = datetime(2026, 5, 1, tzinfo=timezone.utc)

    async def both(memex):
        return (await memex.search(tenant.user, "where does the user live?", as_of=may),
                await memex.recall(tenant.user, "where does she live?", as_of=may))

    if asynchronous:
        async def main():
            async with AsyncMemexClient(tenant.key, base_url) as memex:
                return await both(memex)
        found, recalled = run(main())
    else:
        with MemexClient(tenant.key, base_url) as memex:
            found = memex.search(tenant.user, "where does the user live?", as_of=may)
            recalled = memex.recall(tenant.user, "where does she live?", as_of=may)
    said = [r.content for r in found.results]
    assert "The user lives in Lisbon." in said and not any("Berlin" in text for text in said), said
    assert "Lisbon" in recalled.context and "Berlin" not in recalled.context, recalled.context
