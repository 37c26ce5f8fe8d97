"""The MCP server, through the SDK's own client over real HTTP: against the local runtime's app
served by uvicorn on loopback, against `python -m infra.local` with MEMEX_MCP_PORT, and through
McpFunction's Lambda handler on its sample events."""

from __future__ import annotations

import base64
import json
import logging
import re
import uuid

import anyio
import httpx
import httpx2
import jsonschema
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import function_module
from tests.conftest import ROOT, WIRE_TIMES, served
from tests.test_local_runtime import Server

TOOLS = {"store_memory", "search_memories", "recall_context", "add_turn", "list_memories", "list_sessions",
         "session_messages", "list_turns", "memory_history", "delete_memory", "delete_session", "count_memories",
         "forget_user"}


@pytest.fixture(scope="module")
def mcp_url(runtime):
    """The local runtime's whole app (REST and MCP) on a loopback port, as `make dev` serves it."""
    with served(runtime.asgi_app()) as url:
        yield f"{url}/mcp"


def session(url: str, key: str | None, body, mode: str = "legacy"):
    """Runs `await body(client)` in a session of the SDK's client (streamable HTTP) with this key.
    'legacy' opens with the initialize handshake, 'auto' with the 2026 discovery."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    async def main():
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                return await body(client)

    return anyio.run(main)


async def call(client, tool: str, **arguments) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def refused(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_initialize_and_list_tools_with_their_input_schemas(mcp_url, tenant):
    async def body(client):
        assert client.server_info.name == "memex"
        # The version a client shows beside the name: the API's, as /openapi.json gives it.
        openapi = httpx.get(mcp_url.removesuffix("/mcp") + "/openapi.json").json()
        assert client.server_info.version == openapi["info"]["version"] and client.server_info.description
        assert "recall_context" in client.instructions
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = session(mcp_url, tenant.key, body)
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.title and tool.input_schema["type"] == "object", tool.name
        assert all(p.get("description") for p in tool.input_schema["properties"].values()), tool.name

    store = tools["store_memory"].input_schema
    assert set(store["required"]) == {"user_id", "content"}
    assert store["properties"]["importance"]["maximum"] == 1
    assert store["properties"]["memory_type"]["enum"] == ["episodic", "semantic", "procedural"]
    assert store["properties"]["user_id"]["maxLength"] == 256
    assert tools["search_memories"].input_schema["properties"]["top_k"]["maximum"] == 100
    assert tools["recall_context"].input_schema["properties"]["max_tokens"]["minimum"] == 64
    turn = tools["add_turn"].input_schema
    assert set(turn["required"]) == {"user_id", "session_id", "messages"} and "wait" in turn["properties"]
    assert tools["list_memories"].input_schema["properties"]["limit"]["maximum"] == 500
    assert "agent_id" in tools["list_memories"].input_schema["properties"]
    assert tools["list_memories"].input_schema["properties"]["order"]["enum"] == ["written", "valid_from"]
    assert "agent_id" in tools["list_sessions"].input_schema["properties"]
    assert tools["delete_memory"].annotations.destructive_hint and tools["forget_user"].annotations.destructive_hint
    assert tools["delete_session"].annotations.destructive_hint
    # An agent told "forget Stripe" must learn that the current employer stays (db/erasure.py).
    assert "never what replaced it" in tools["delete_memory"].description
    assert set(tools["delete_session"].input_schema["required"]) == {"user_id", "session_id"}
    assert tools["search_memories"].annotations.read_only_hint

    # The 2026 protocol (discovery instead of the handshake) reaches the same tools.
    async def modern(client):
        return {tool.name for tool in (await client.list_tools()).tools}

    assert session(mcp_url, tenant.key, modern, mode="auto") == TOOLS


def test_an_mcp_request_through_the_local_runtime_logs_no_session_line(mcp_url, tenant, caplog):
    # Every request ended with the SDK's INFO "Terminating session: None" in `make dev`'s log.
    from infra.local.runtime import quiet_libraries

    loggers = [logger for logger in logging.root.manager.loggerDict.values() if isinstance(logger, logging.Logger)]
    levels = {logger: logger.level for logger in loggers}
    try:
        quiet_libraries()
        with caplog.at_level(logging.INFO):
            async def body(client):
                return await client.list_tools()

            assert session(mcp_url, tenant.key, body).tools
    finally:
        for logger, level in levels.items():
            logger.setLevel(level)
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("mcp.")]


def _field_names(schema) -> set[str]:
    """Every property name a schema declares, however deep."""
    if isinstance(schema, dict):
        return set(schema.get("properties", {})) | {name for value in schema.values() for name in _field_names(value)}
    return {name for value in schema for name in _field_names(value)} if isinstance(schema, list) else set()


def test_the_instructions_and_descriptions_point_only_to_this_servers_tools(mcp_url, tenant):
    """A model follows the names it reads: every snake_case name in the server's instructions and
    the tools' descriptions is a tool of this server or a field of one, and the instructions name
    the loop's two tools and the ids they take."""

    async def body(client):
        return client.instructions, (await client.list_tools()).tools

    instructions, tools = session(mcp_url, tenant.key, body)
    fields = set().union(*(_field_names(tool.input_schema) | _field_names(tool.output_schema) for tool in tools))
    for text in [instructions, *(tool.description for tool in tools)]:
        named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)) - fields
        assert named <= TOOLS, (named - TOOLS, text)
    assert {"recall_context", "add_turn", "user_id", "session_id"} <= set(re.findall(r"\w+", instructions))


def test_the_instructions_loop_over_three_days(mcp_url, tenant, runtime):
    """What the server's instructions tell an agent, day after day: recall_context with the user's
    message before answering, add_turn with the message and the reply after; what a day taught is
    in the next day's context, and a change replaces what it changes."""
    days = [("2026-03-02T09:00:00Z", "Can you help me plan my week?", "I work at Stripe and live in Lisbon.",
             "Sure, Dana."),
            ("2026-03-03T09:00:00Z", "What should I pack for my commute?", "I just started at Notion, left Stripe.",
             "Congratulations!"),
            ("2026-03-04T09:00:00Z", "Where do I work now?", None, None)]

    async def day(client, when: str, question: str, said: str | None, reply: str | None) -> dict:
        context = await call(client, "recall_context", user_id=tenant.user, session_id=when[:10], query=question,
                             reference_time=when)
        if said:
            await call(client, "add_turn", user_id=tenant.user, session_id=when[:10], timestamp=when, messages=[
                {"role": "user", "content": f"{question} {said}"}, {"role": "assistant", "content": reply}])
        return context

    contexts = []
    for when, question, said, reply in days:
        contexts.append(session(mcp_url, tenant.key, lambda client: day(client, when, question, said, reply)))
        runtime.drain()
    first, second, third = contexts
    assert first == {"context": "", "citations": [], "token_count": 0, "degraded": []}
    assert "The user's employer is Stripe." in second["context"] and "The user lives in Lisbon." in second["context"]
    facts = [c["snippet"] for c in third["citations"] if c["bucket"] == "facts"]
    assert "The user's employer is Notion." in facts and "The user's employer is Stripe." not in facts
    assert "The user lives in Lisbon." in facts


def _closed(schema: dict) -> dict:
    """The schema with every object that names its properties closed to others."""
    if isinstance(schema, dict):
        closed = {key: _closed(value) for key, value in schema.items()}
        if "properties" in closed:
            closed["additionalProperties"] = False
        return closed
    return [_closed(value) for value in schema] if isinstance(schema, list) else schema


def test_every_tools_result_is_typed_by_its_output_schema_field_by_field(mcp_url, tenant):
    """Each tool publishes its REST route's answer shape as its output schema (not an open
    object), and every result holds exactly the fields it names, its times in UTC with Z, and
    nothing the domain left out as null: a queued turn is its id and status."""

    async def body(client):
        schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        turn = {"user_id": tenant.user, "session_id": "s1", "timestamp": "2026-03-01T11:00:00+01:00"}
        results = {"add_turn": await client.call_tool("add_turn", {**turn, "wait": True, "messages": [
                       {"role": "user", "content": "I work at Stripe."}]}),
                   "queued": await client.call_tool("add_turn", {**turn, "messages": [
                       {"role": "user", "content": "I just started at Notion."}]})}
        stored = await call(client, "store_memory", user_id=tenant.user, content="Prefers tea")
        for tool, arguments in [
                ("search_memories", {"user_id": tenant.user, "query": "Stripe"}),
                ("recall_context", {"user_id": tenant.user, "query": "work", "session_id": "s1"}),
                ("list_memories", {"user_id": tenant.user}), ("list_sessions", {"user_id": tenant.user}),
                ("session_messages", {"user_id": tenant.user, "session_id": "s1"}),
                ("list_turns", {"user_id": tenant.user}),
                ("memory_history", {"memory_id": stored["id"]}), ("count_memories", {"user_id": tenant.user}),
                ("delete_memory", {"memory_id": stored["id"]}),
                ("delete_session", {"user_id": tenant.user, "session_id": "s1"}),
                ("forget_user", {"user_id": tenant.user})]:
            results[tool] = await client.call_tool(tool, arguments)
        results["store_memory"] = await client.call_tool("store_memory", {"user_id": tenant.user, "content": "x"})
        return schemas, results

    schemas, results = session(mcp_url, tenant.key, body)
    for tool, schema in schemas.items():
        assert schema["type"] == "object" and schema["properties"] and schema["required"], tool
    assert set(schemas["search_memories"]["required"]) == {"results", "query", "total", "degraded"}
    assert "occurred_at" in schemas["add_turn"]["properties"] and schemas["add_turn"]["required"] == ["turn_id", "status"]
    for tool, result in results.items():
        assert not result.is_error, (tool, result.content)
        schema = _closed(schemas["add_turn" if tool == "queued" else tool])
        jsonschema.validate(result.structured_content, schema, format_checker=WIRE_TIMES)
        assert json.loads(result.content[0].text) == result.structured_content, tool
        # Compact: the text is what most clients hand the model, and indentation is only tokens.
        assert "\n" not in result.content[0].text, tool
    assert results["search_memories"].structured_content["results"]
    assert results["add_turn"].structured_content["occurred_at"] == "2026-03-01T10:00:00Z"
    assert set(results["queued"].structured_content) == {"turn_id", "status"}


def test_store_then_search_count_and_list(mcp_url, tenant):
    async def body(client):
        stored = await call(client, "store_memory", user_id=tenant.user, content="Prefers answers in bullet points",
                            memory_type="procedural", importance=0.8, metadata={"source": "mcp"})
        found = await call(client, "search_memories", user_id=tenant.user, query="bullet points")
        counted = await call(client, "count_memories", user_id=tenant.user)
        listed = await call(client, "list_memories", user_id=tenant.user)
        nothing = await call(client, "search_memories", user_id=tenant.user, query="quantum chromodynamics")
        another = await call(client, "list_memories", user_id=tenant.user, agent_id="planner")
        by_time = await call(client, "list_memories", user_id=tenant.user, order="valid_from")
        return stored, found, counted, listed, nothing, another, by_time

    stored, found, counted, listed, nothing, another, by_time = session(mcp_url, tenant.key, body)
    assert another == {"memories": [], "next_cursor": None}
    assert by_time == listed
    assert stored["content"] == "Prefers answers in bullet points" and stored["memory_type"] == "procedural"
    assert found["results"][0]["id"] == stored["id"] and found["degraded"] == []
    assert counted == {"count": 1}
    assert [m["id"] for m in listed["memories"]] == [stored["id"]] and listed["next_cursor"] is None
    assert nothing["results"] == []
    # The same memory over REST: one domain behind both.
    assert tenant.get(f"/v1/memories/{stored['id']}").json()["metadata"] == {"source": "mcp"}


def test_the_memex_seeds_url_with_its_trailing_slash_reaches_the_tools(mcp_url, tenant):
    # docs/api.md "API compatibility": a client configured with the seed's http://localhost:8001/mcp/ is
    # answered there, as at /mcp (never redirected: tests/test_api.py, the trailing slash).
    async def body(client):
        stored = await call(client, "store_memory", user_id=tenant.user, agent_id="a1", content="Prefers dark mode",
                            memory_type="semantic", importance=0.9)
        counted = await call(client, "count_memories", user_id=tenant.user, agent_id="a1")
        return stored, counted

    stored, counted = session(f"{mcp_url}/", tenant.key, body)
    assert stored["content"] == "Prefers dark mode" and counted == {"count": 1}


def test_recall_has_the_turn_just_added_before_it_is_processed(mcp_url, tenant):
    """The loop the instructions tell: add_turn (queued), then recall_context for the next reply."""
    async def body(client):
        added = await call(client, "add_turn", user_id=tenant.user, session_id="s1", messages=[
            {"role": "user", "content": "Book the dentist for Friday."}])
        return added, await call(client, "recall_context", user_id=tenant.user, session_id="s1", query="anything to plan?")

    added, recalled = session(mcp_url, tenant.key, body)
    assert added["status"] == "queued"
    assert [(c["turn_id"], c["memory_id"], c["bucket"]) for c in recalled["citations"]] == [
        (added["turn_id"], None, "recent")], recalled
    assert recalled["context"].splitlines()[-1] == "- Book the dentist for Friday."


def test_recall_returns_cited_context_within_its_budget(mcp_url, tenant):
    # About 20 tokens each: 64 tokens hold two or three of them, not five.
    facts = ["The user's employer is Notion, where they lead the design systems team since last spring.",
             "The user lives in Lisbon, in a flat near the river with a view of the bridge.",
             "The user's dog is called Biscuit, a beagle who is afraid of thunderstorms and vacuums.",
             "The user is allergic to peanuts and carries an epinephrine pen on every trip abroad.",
             "The user plays the cello on weekends with a string quartet from the conservatory."]

    async def body(client):
        ids = [(await call(client, "store_memory", user_id=tenant.user, content=fact))["id"] for fact in facts]
        roomy = await call(client, "recall_context", user_id=tenant.user, query="Notion Lisbon Biscuit peanuts cello",
                           max_tokens=2000)
        tight = await call(client, "recall_context", user_id=tenant.user, query="Notion Lisbon Biscuit peanuts cello",
                           max_tokens=64)
        return ids, roomy, tight

    ids, roomy, tight = session(mcp_url, tenant.key, body)
    assert {c["memory_id"] for c in roomy["citations"]} == set(ids)
    assert all(fact in roomy["context"] for fact in facts)
    assert roomy["token_count"] <= 2000
    assert 0 < len(tight["citations"]) < len(facts) and tight["token_count"] <= 64
    for citation in tight["citations"]:
        assert citation["snippet"] in tight["context"]


def test_recall_says_the_day_in_the_offset_of_its_reference_time(mcp_url, tenant):
    """An agent in Tokyo passes the user's offset: the cat adopted "yesterday", said at 08:30 on 2 March
    there (1 March in UTC), is said on 2 March (tests/test_time_zones.py for the REST routes)."""
    tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-02T08:30:00+09:00")

    async def body(client):
        return [(await call(client, "recall_context", user_id=tenant.user, query="did I adopt a pet?",
                            reference_time=when))["context"].splitlines()
                for when in ("2026-03-05T09:00:00+09:00", "2026-03-05T00:00:00Z")]

    tokyo, utc = session(mcp_url, tenant.key, body)
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in tokyo, tokyo
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in utc, utc


def test_add_turn_is_extracted_by_the_workers_and_history_shows_the_chain(mcp_url, tenant, runtime):
    async def send(client, text: str, timestamp: str) -> dict:
        return await call(client, "add_turn", user_id=tenant.user, session_id="s1", timestamp=timestamp,
                          messages=[{"role": "user", "content": text}])

    async def first(client):
        return await send(client, "I work at Stripe.", "2026-01-10T09:00:00Z")

    queued = session(mcp_url, tenant.key, first)
    assert queued["status"] == "queued"
    runtime.drain()

    async def second(client):
        listed = await call(client, "list_memories", user_id=tenant.user)
        await send(client, "I just started at Notion, left Stripe.", "2026-03-01T09:00:00Z")
        return listed

    listed = session(mcp_url, tenant.key, second)
    assert "The user's employer is Stripe." in {m["content"] for m in listed["memories"]}
    runtime.drain()

    async def third(client):
        found = await call(client, "search_memories", user_id=tenant.user, query="employer",
                           filters={"memory_type": "semantic"})
        current = next(m for m in found["results"] if m["key"] == "employer")
        return current, await call(client, "memory_history", memory_id=current["id"])

    current, history = session(mcp_url, tenant.key, third)
    assert current["value"] == "Notion"
    assert [m["value"] for m in history["history"]] == ["Stripe", "Notion"]
    assert history["history"][0]["valid_to"] is not None and history["history"][1]["active"]


def test_add_turn_with_wait_returns_its_memories(mcp_url, tenant):
    async def body(client):
        return await call(client, "add_turn", user_id=tenant.user, session_id="s1", wait=True,
                          messages=[{"role": "user", "content": "My dog is called Biscuit."}])

    processed = session(mcp_url, tenant.key, body)
    assert processed["status"] == "processed"
    assert "The user's dog is named Biscuit." in {m["content"] for m in processed["memories"]}


def test_delete_memory_and_forget_user_remove_data(mcp_url, tenant):
    async def body(client):
        kept = await call(client, "store_memory", user_id=tenant.user, content="Lives in Porto")
        gone = await call(client, "store_memory", user_id=tenant.user, content="Collects vinyl records")
        deleted = await call(client, "delete_memory", memory_id=gone["id"])
        again = await refused(client, "delete_memory", memory_id=gone["id"])
        history = await refused(client, "memory_history", memory_id=gone["id"])
        after_delete = await call(client, "search_memories", user_id=tenant.user, query="vinyl records")
        counted = await call(client, "count_memories", user_id=tenant.user)
        counted_all = await call(client, "count_memories", user_id=tenant.user, include_inactive=True)
        forgotten = await call(client, "forget_user", user_id=tenant.user)
        left = await call(client, "list_memories", user_id=tenant.user, include_inactive=True)
        return kept, gone, deleted, again, history, after_delete, counted, counted_all, forgotten, left

    kept, gone, deleted, again, history, after_delete, counted, counted_all, forgotten, left = \
        session(mcp_url, tenant.key, body)
    assert deleted == {"deleted": {"memories": 1}}
    assert f"memory {gone['id']} not found" in again and "not_found" in again
    assert f"memory {gone['id']} not found" in history
    assert after_delete["results"] == [] and counted == counted_all == {"count": 1}  # erased: no history either
    assert forgotten["deleted"]["memories"] == 1
    assert left == {"memories": [], "next_cursor": None}
    assert tenant.get(f"/v1/memories/{kept['id']}").status_code == 404


def test_a_users_conversations_are_listed_and_read_then_forgotten(mcp_url, tenant):
    """A data-subject request over MCP: the user's sessions, each one's messages, then the user
    erased; the same user id's conversation in another session of theirs is listed too."""

    async def body(client):
        for session_id, timestamp, said in [("trip", "2026-03-01T10:00:00Z", ["I moved to Bristol.", "Nice."]),
                                            ("work", "2026-03-02T10:00:00Z", ["I work at Oracle."])]:
            await call(client, "add_turn", user_id=tenant.user, session_id=session_id, timestamp=timestamp,
                       messages=[{"role": "user", "content": text} for text in said],
                       **({"agent_id": "coach"} if session_id == "work" else {}))
        listed = await call(client, "list_sessions", user_id=tenant.user)
        coached = await call(client, "list_sessions", user_id=tenant.user, agent_id="coach")
        first = await call(client, "session_messages", user_id=tenant.user, session_id="trip", limit=1)
        rest = await call(client, "session_messages", user_id=tenant.user, session_id="trip",
                          cursor=first["next_cursor"])
        elsewhere = await refused(client, "session_messages", user_id=tenant.user, session_id="work",
                                  cursor=first["next_cursor"])
        missing = await refused(client, "session_messages", user_id=tenant.user, session_id="nope")
        turns = await call(client, "list_turns", user_id=tenant.user)
        # A cursor's time of receipt pushed past the years a time holds: refused, not Postgres's overflow.
        issued = (await call(client, "list_turns", user_id=tenant.user, limit=1))["next_cursor"]
        key = json.loads(base64.urlsafe_b64decode(issued + "=" * (-len(issued) % 4)))
        pushed = base64.urlsafe_b64encode(json.dumps([*key[:3], 10**30]).encode()).decode()
        tampered = await refused(client, "list_turns", user_id=tenant.user, cursor=pushed)
        await call(client, "forget_user", user_id=tenant.user)
        after = await call(client, "list_sessions", user_id=tenant.user)
        return listed, coached, first, rest, elsewhere, missing, turns, tampered, after

    listed, coached, first, rest, elsewhere, missing, turns, tampered, after = session(mcp_url, tenant.key, body)
    assert tampered == "Error executing tool list_turns: cursor: not a cursor this server issued"
    assert [(t["session_id"], t["agent_id"], [m["content"] for m in t["messages"]]) for t in turns["turns"]] == [
        ("trip", None, ["I moved to Bristol.", "Nice."]), ("work", "coach", ["I work at Oracle."])]
    assert [(s["session_id"], s["turns"], s["messages"]) for s in listed["sessions"]] == [("work", 1, 1),
                                                                                       ("trip", 1, 2)]
    assert coached["sessions"] == listed["sessions"][:1] and coached["next_cursor"] is None
    assert [m["content"] for m in first["messages"] + rest["messages"]] == ["I moved to Bristol.", "Nice."]
    assert "cursor: the next_cursor of another listing" in elsewhere
    assert "not_found: session nope" in missing
    assert after == {"user_id": tenant.user, "sessions": [], "next_cursor": None}


def test_delete_session_erases_one_users_conversation_and_what_was_drawn_from_it(mcp_url, tenant):
    """What `DELETE /v1/sessions/{id}?user_id=` does, as a tool: the user is required, since a
    session id names one user's session; the same id of another user is left alone."""
    other_user = f"{tenant.user}-b"

    async def body(client):
        for user, session_id, said in [(tenant.user, "trip", "I moved to Bristol."),
                                       (tenant.user, "work", "I work at Oracle."),
                                       (other_user, "trip", "I moved to Leeds.")]:
            await call(client, "add_turn", user_id=user, session_id=session_id, wait=True,
                       messages=[{"role": "user", "content": said}])
        missing = await refused(client, "delete_session", session_id="trip")
        deleted = await call(client, "delete_session", user_id=tenant.user, session_id="trip")
        again = await call(client, "delete_session", user_id=tenant.user, session_id="trip")
        left = await call(client, "list_memories", user_id=tenant.user, include_inactive=True)
        others = await call(client, "list_memories", user_id=other_user, include_inactive=True)
        return missing, deleted, again, left, others

    missing, deleted, again, left, others = session(mcp_url, tenant.key, body)
    assert "user_id: Field required" in missing
    assert deleted["deleted"]["turns"] == 1 and deleted["deleted"]["memories"] >= 2  # the message and its city
    assert again == {"deleted": {"turns": 0, "memories": 0}}
    assert {m["session_id"] for m in left["memories"]} == {"work"}
    assert not any("Bristol" in m["content"] for m in left["memories"])
    assert any(m["value"] == "Leeds" for m in others["memories"])


def test_bad_arguments_are_tool_errors_naming_the_field_and_store_nothing(mcp_url, tenant):
    async def body(client):
        errors = {
            "missing": await refused(client, "store_memory", content="no user"),
            "range": await refused(client, "store_memory", user_id=tenant.user, content="x", importance=3),
            "id": await refused(client, "store_memory", user_id="has space", content="x"),
            "unknown": await refused(client, "store_memory", usr_id=tenant.user, user_id=tenant.user, content="x"),
            "role": await refused(client, "add_turn", user_id=tenant.user, session_id="s1",
                                  messages=[{"role": "robot", "content": "hi"}]),
            "future": await refused(client, "add_turn", user_id=tenant.user, session_id="s1",
                                    timestamp="2999-01-01T00:00:00Z", messages=[{"role": "user", "content": "hi"}]),
            "metadata": await refused(client, "store_memory", user_id=tenant.user, content="x",
                                      metadata={"a": "nul\u0000"}),
            "cursor": await refused(client, "list_memories", user_id=tenant.user, cursor="made-up"),
            "mode": await refused(client, "search_memories", user_id=tenant.user, query="x", mode="fuzzy"),
            "flag": await refused(client, "list_memories", user_id=tenant.user, include_inactive=1),
            "wait": await refused(client, "add_turn", user_id=tenant.user, session_id="s1", wait="yes",
                                  messages=[{"role": "user", "content": "I live in Oslo."}]),
        }
        return errors, await call(client, "count_memories", user_id=tenant.user)

    errors, counted = session(mcp_url, tenant.key, body)
    assert "user_id: Field required" in errors["missing"]
    assert "importance: Input should be less than or equal to 1" in errors["range"]
    assert "user_id: must be 1 to 256 letters" in errors["id"]
    assert "usr_id: not an argument of this tool" in errors["unknown"]
    assert "messages.0.role: Input should be 'user', 'assistant', 'system' or 'tool'" in errors["role"]
    assert "timestamp: must not be more than" in errors["future"]
    assert "metadata.a: must not contain the NUL character" in errors["metadata"]
    assert errors["cursor"] == "Error executing tool list_memories: cursor: not a cursor this server issued"
    assert errors["mode"].startswith("Error executing tool search_memories: mode: Input should be")
    assert errors["flag"] == "Error executing tool list_memories: include_inactive: must be true or false, not 1"
    assert errors["wait"] == 'Error executing tool add_turn: wait: must be true or false, not "yes"'
    assert counted == {"count": 0}


def test_a_nan_and_a_blank_query_are_refused_as_the_rest_api_words_them(mcp_url, tenant):
    """A NaN was refused for a bound it does not break, and a search's blank `query` with a hint
    about URL query strings, which no MCP argument travels in."""
    async def body(client):
        return {
            "nan": await refused(client, "store_memory", user_id=tenant.user, content="x", importance="NaN"),
            "infinity": await refused(client, "search_memories", user_id=tenant.user, query="x",
                                      half_life_days="Infinity"),
            "blank": await refused(client, "search_memories", user_id=tenant.user, query="   "),
            "nul": await refused(client, "recall_context", user_id=tenant.user, query="a b\u0000"),
        }

    errors = session(mcp_url, tenant.key, body)
    assert errors["nan"] == "Error executing tool store_memory: importance: Input should be a finite number"
    assert errors["infinity"] == "Error executing tool search_memories: half_life_days: Input should be a finite number"
    assert errors["blank"] == "Error executing tool search_memories: query: must not be blank"
    assert errors["nul"] == "Error executing tool recall_context: query: must not contain the NUL character (U+0000)"
    # A REST query string's + still gets its hint.
    counted = tenant.get("/v1/memories/count", params={"user_id": "a b"})
    assert counted.json()["error"]["message"].endswith("(a + in a query string is read as a space: send it as %2B)")


def test_a_wrong_or_missing_key_is_refused_with_401(mcp_url, tenant):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    for headers in ({"Authorization": "Bearer mx_wrong"}, {}, {"Authorization": f"Basic {tenant.key}"}):
        response = httpx.post(mcp_url, json=initialize, headers=accept | headers)
        assert response.status_code == 401, headers
        # A JSON-RPC error, memex's code in its data: what an MCP client reports.
        refused = response.json()
        assert refused["jsonrpc"] == "2.0" and refused["id"] is None
        assert refused["error"]["data"]["code"] == "unauthorized" and refused["error"]["data"]["status"] == 401
        assert refused["error"]["message"].startswith("unauthorized: ")
        assert response.headers["www-authenticate"] == "Bearer"
    assert httpx.post(mcp_url, json=initialize, headers=accept | tenant.headers).status_code == 200

    reached = []

    async def body(client):
        reached.append(await client.list_tools())

    # The SDK's client cannot even open the session, and says why (it used to say only "Server
    # returned an error response").
    with pytest.raises(BaseException) as caught:
        session(mcp_url, "mx_wrong", body)
    assert caught.group_contains(MCPError, match="^unauthorized: invalid API key$", depth=None) and not reached


def test_a_body_over_the_limit_is_a_413_the_sdks_client_reports_naming_the_limit(mcp_url, tenant, ctx):
    limit = ctx.settings.max_body_bytes
    huge = "x" * (limit + 1)

    async def body(client):
        await client.call_tool("store_memory", {"user_id": tenant.user, "content": huge})

    # The SDK's client used to report only "Server returned an error response".
    with pytest.raises(BaseException) as caught:
        session(mcp_url, tenant.key, body)
    assert caught.group_contains(MCPError, match=f"^payload_too_large: request body exceeds {limit} bytes$",
                                 depth=None)

    # Sent in chunks, without a Content-Length: refused as it streams in, in the same words.
    payload = json.dumps(_tool_call("store_memory", user_id=tenant.user, content=huge)).encode()
    chunked = httpx.post(mcp_url, content=(payload[i:i + 65536] for i in range(0, len(payload), 65536)),
                         headers=tenant.headers | {"Accept": "application/json, text/event-stream",
                                                   "Content-Type": "application/json"})
    refused = chunked.json()
    assert chunked.status_code == 413 and refused["jsonrpc"] == "2.0" and refused["id"] is None
    assert refused["error"]["data"] == {"code": "payload_too_large", "status": 413,
                                        "message": f"request body exceeds {limit} bytes"}
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 0


def test_only_post_is_served_and_a_405_says_so(mcp_url, tenant):
    """Stateless: no stream to open (GET) and no session to end (DELETE); the Allow of a 405 names
    exactly the methods that are answered."""
    headers = tenant.headers | {"Accept": "application/json, text/event-stream"}
    refused = httpx.get(mcp_url, headers=headers)
    assert refused.status_code == 405 and refused.json()["error"]["code"] == "method_not_allowed"
    allowed = set(refused.headers["allow"].split(", "))
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for method in ("GET", "POST", "DELETE"):
        answer = httpx.request(method, mcp_url, headers=headers, json=ping if method == "POST" else None)
        assert (answer.status_code != 405) == (method in allowed), (method, answer.status_code)
    # HEAD, answered where GET is on the REST routes, is refused as GET is here, without a body (the
    # SDK's 405 named GET and DELETE in its Allow); so is any other method, with or without a key.
    for method in ("HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"):
        for sent in (headers, {}):
            answer = httpx.request(method, mcp_url, headers=sent)
            assert (answer.status_code, answer.headers["allow"]) == (405, "POST"), (method, answer.headers)
            if method == "HEAD":
                assert answer.content == b""
            else:
                assert answer.json()["error"] == {"code": "method_not_allowed",
                                                  "message": f"{method} is not a method of /mcp; it takes POST"}


def test_another_tenants_key_sees_and_changes_nothing(mcp_url, tenant, other_tenant):
    async def owner(client):
        await call(client, "add_turn", user_id=tenant.user, session_id="bikes", wait=True,
                   messages=[{"role": "user", "content": "I ride to work."}])
        return await call(client, "store_memory", user_id=tenant.user, session_id="bikes", content="Owns a red bicycle")

    mine = session(mcp_url, tenant.key, owner)

    async def intruder(client):
        # The same user id, under another tenant's key.
        return {
            "search": await call(client, "search_memories", user_id=tenant.user, query="red bicycle"),
            "recall": await call(client, "recall_context", user_id=tenant.user, query="red bicycle"),
            "count": await call(client, "count_memories", user_id=tenant.user),
            "list": await call(client, "list_memories", user_id=tenant.user, include_inactive=True),
            "sessions": await call(client, "list_sessions", user_id=tenant.user),
            "messages": await refused(client, "session_messages", user_id=tenant.user, session_id="bikes"),
            "history": await refused(client, "memory_history", memory_id=mine["id"]),
            "delete": await refused(client, "delete_memory", memory_id=mine["id"]),
            "session": await call(client, "delete_session", user_id=tenant.user, session_id="bikes"),
            "forget": await call(client, "forget_user", user_id=tenant.user),
        }

    seen = session(mcp_url, other_tenant.key, intruder)
    assert seen["search"]["results"] == [] and seen["recall"]["citations"] == []
    assert seen["count"] == {"count": 0} and seen["list"]["memories"] == []
    assert seen["sessions"]["sessions"] == [] and "not_found" in seen["messages"]
    assert "not_found" in seen["history"] and "not_found" in seen["delete"]
    assert seen["session"]["deleted"] == {"turns": 0, "memories": 0}
    assert seen["forget"]["deleted"]["memories"] == 0

    async def check(client):
        return (await call(client, "search_memories", user_id=tenant.user, query="red bicycle"),
                await call(client, "list_sessions", user_id=tenant.user))

    found, sessions = session(mcp_url, tenant.key, check)
    assert found["results"][0]["id"] == mine["id"]
    assert [(s["session_id"], s["turns"]) for s in sessions["sessions"]] == [("bikes", 1)]


# ---------------------------------------------------------------- McpFunction, through Mangum

def _invoke(name: str, key: str, body: dict | None = None) -> tuple[int, dict, dict]:
    event = json.loads((ROOT / "events" / f"{name}.json").read_text())
    event["headers"]["authorization"] = f"Bearer {key}"
    if body is not None:
        event["body"] = json.dumps(body)
        event["headers"]["content-length"] = str(len(event["body"].encode()))
    response = function_module("mcp").handler(event, LocalLambdaContext("mcp"))
    return response["statusCode"], response["headers"], json.loads(response["body"])


def _tool_call(tool: str, **arguments) -> dict:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def test_mcpfn_refuses_a_body_over_the_limit_as_a_jsonrpc_error(tenant, ctx):
    limit = ctx.settings.max_body_bytes
    status, _, refused = _invoke("mcp_tools_list", tenant.key,
                                 _tool_call("store_memory", user_id=tenant.user, content="x" * (limit + 1)))
    assert status == 413 and refused["error"]["message"] == f"payload_too_large: request body exceeds {limit} bytes"


def test_each_invocation_runs_the_session_manager_around_itself_alone(tenant, ctx):
    """Mangum enters the app's lifespan around each invocation: the surface's session manager runs
    while the request is served and is stopped after it, and the next invocation runs a new one,
    even once the thread has no current event loop (as after asyncio.run)."""
    import asyncio

    surface = function_module("mcp").mcp
    assert not surface.serving
    asyncio.run(asyncio.sleep(0))
    for _ in range(2):
        status, _, listed = _invoke("mcp_tools_list", tenant.key)
        assert status == 200 and {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
        assert not surface.serving


def test_lambda_handler_serves_initialize_tools_list_and_calls_on_sample_events(tenant, ctx):
    status, headers, answer = _invoke("mcp_initialize", tenant.key)
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert answer["result"]["serverInfo"]["name"] == "memex" and answer["result"]["capabilities"]["tools"] is not None
    # Stateless: no session to come back to; each invocation stands alone.
    assert "mcp-session-id" not in headers

    status, _, listed = _invoke("mcp_tools_list", tenant.key)
    assert status == 200 and {tool["name"] for tool in listed["result"]["tools"]} == TOOLS

    def tool(name: str, **arguments) -> dict:
        status, _, answer = _invoke("mcp_tools_list", tenant.key, _tool_call(name, **arguments))
        assert status == 200 and not answer["result"].get("isError"), answer
        return answer["result"]["structuredContent"]

    stored = tool("store_memory", user_id=tenant.user, content="Speaks Portuguese and Japanese")
    assert tool("search_memories", user_id=tenant.user, query="Japanese")["results"][0]["id"] == stored["id"]
    assert tool("recall_context", user_id=tenant.user, query="languages")["citations"][0]["memory_id"] == stored["id"]
    assert tool("delete_memory", memory_id=stored["id"]) == {"deleted": {"memories": 1}}
    assert tool("count_memories", user_id=tenant.user) == {"count": 0}

    status, headers, refused = _invoke("mcp_tools_list", "mx_wrong")
    assert status == 401 and refused["error"]["data"]["code"] == "unauthorized"

    # Stateless: no server-to-client stream to open, as MCP says it is answered.
    event = json.loads((ROOT / "events" / "mcp_tools_list.json").read_text())
    event["routeKey"] = event["requestContext"]["routeKey"] = "GET /mcp"
    event["requestContext"]["http"]["method"] = "GET"
    event["headers"] |= {"authorization": f"Bearer {tenant.key}", "accept": "text/event-stream"}
    event["body"] = None
    assert function_module("mcp").handler(event, LocalLambdaContext("mcp"))["statusCode"] == 405
    # HEAD, routed to the function too (template.yaml), refused alike without a body
    event["routeKey"] = event["requestContext"]["routeKey"] = "HEAD /mcp"
    event["requestContext"]["http"]["method"] = "HEAD"
    head = function_module("mcp").handler(event, LocalLambdaContext("mcp"))
    assert (head["statusCode"], head["headers"]["allow"], head["body"]) == (405, "POST", "")


def test_make_dev_serves_mcp_at_slash_mcp_and_on_the_mcp_port(tmp_path):
    async def round_trip(client):
        stored = await call(client, "store_memory", user_id="alice", content="Takes the train to work")
        found = await call(client, "search_memories", user_id="alice", query="train")
        return stored["id"], [m["id"] for m in found["results"]]

    # MEMEX_MCP_PORT=0, as MEMEX_PORT=0: a free port, said at start (one picked free here could be taken first)
    server = Server(tmp_path, {"MEMEX_MCP_PORT": "0"})
    try:
        url, mcp_url = server.url, re.search(r"^memex: MCP also on (http://\S+/mcp)$", server.output(), re.M)[1]
        assert mcp_url != f"{url}/mcp"
        # No key exists yet: the default tenant, as over REST; both ports reach the same memories.
        stored, found = session(mcp_url, None, round_trip)
        assert stored in found
        _, found_again = session(f"{url}/mcp", None, round_trip)
        assert stored in found_again
        # On loopback, a request naming another host is refused (DNS rebinding).
        foreign = httpx.post(mcp_url, headers={"Host": "evil.example"}, json=_tool_call("count_memories", user_id="alice"))
        assert foreign.status_code == 421
    finally:
        assert server.stop() == 0, server.output()


def test_search_memories_says_what_of_a_message_is_no_longer_current(mcp_url, tenant):
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-05-02T09:00:00Z")

    async def body(client):
        schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        return schemas["search_memories"], await call(client, "search_memories", user_id=tenant.user,
                                                      query="Lisbon", top_k=10)

    schema, found = session(mcp_url, tenant.key, body)
    scored = schema["$defs"]["ScoredMemory"]
    assert "no_longer_current" in scored["required"], scored
    assert scored["properties"]["no_longer_current"]["items"] == {"type": "string"}
    marks = {r["content"]: r["no_longer_current"] for r in found["results"]}
    assert marks["I live in Lisbon."] == ["Lisbon"] and marks["We moved to Berlin."] == [], marks


def test_search_and_recall_read_memory_as_of_a_date(mcp_url, tenant):
    """`as_of` on both tools: in May the user lived in Lisbon; the move said in September is not yet."""
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-09-02T09:00:00Z")

    async def body(client):
        found = await call(client, "search_memories", user_id=tenant.user, query="where does the user live?",
                           as_of="2026-05-01T00:00:00Z")
        recalled = await call(client, "recall_context", user_id=tenant.user, query="where does she live?",
                              as_of="2026-05-01T00:00:00Z")
        return found, recalled, await refused(client, "search_memories", user_id=tenant.user, query="where?",
                                              as_of="2999-01-01T00:00:00Z")

    found, recalled, bad = session(mcp_url, tenant.key, body)
    said = [r["content"] for r in found["results"]]
    assert "The user lives in Lisbon." in said and not any("Berlin" in text for text in said), said
    assert "Lisbon" in recalled["context"] and "Berlin" not in recalled["context"], recalled
    assert "as_of" in bad, bad


def test_a_refused_tool_logs_no_id_of_the_user(mcp_url, tenant, caplog):
    """The MCP SDK logs every failed tool's message at INFO, and memex's say which user and session
    were not found: the client is told, the log is not (as no refused REST request is logged)."""
    user, said = f"Qz{uuid.uuid4().hex[:10]}", f"qz{uuid.uuid4().hex[:10]}"

    async def body(client):
        return [await refused(client, "session_messages", user_id=user, session_id=said),
                await refused(client, "list_memories", user_id=user, cursor=said)]

    caplog.set_level(logging.INFO)
    answers = session(mcp_url, tenant.key, body)
    assert user in answers[0] and said in answers[0] and "cursor" in answers[1]
    assert [r.getMessage() for r in caplog.records if user in r.getMessage() or said in r.getMessage()] == []


def test_an_answer_that_does_not_fit_its_shape_is_an_internal_error_not_a_wrong_argument(mcp_url, tenant,
                                                                                        monkeypatch):
    """memex's own answer checked against the tool's output shape, failing (a fault of memex's), is told as an
    internal error, not as the caller's arguments being wrong, and its value is not told."""
    from memex import memories

    monkeypatch.setattr(memories, "count", lambda *args, **kwargs: "a secret of the user's")

    async def body(client):
        return await refused(client, "count_memories", user_id="alice")

    said = session(mcp_url, tenant.key, body)
    assert said.endswith("internal error") and "secret" not in said and "count" not in said.removeprefix(
        "Error executing tool count_memories"), said


def test_an_answer_not_even_an_object_is_an_internal_error_too(mcp_url, tenant, monkeypatch):
    """An answer that fails its shape as a whole (its error has no field to name) is logged and told the same."""
    from memex import sessions

    monkeypatch.setattr(sessions, "of_user", lambda *args, **kwargs: "a secret of the user's")

    async def body(client):
        return await refused(client, "list_sessions", user_id="alice")

    said = session(mcp_url, tenant.key, body)
    assert said.endswith("internal error") and "secret" not in said, said


def test_a_turn_sent_again_after_its_erasure_is_a_tool_error_naming_it(mcp_url, tenant):
    """An agent's retry of add_turn with the key of a turn its user erased since (delete_session) stores
    nothing and is told so, by the code REST answers 409 with."""
    turn = {"user_id": tenant.user, "session_id": "gone", "idempotency_key": "k-erased",
            "messages": [{"role": "user", "content": "I work at Acme."}]}

    async def body(client):
        await call(client, "add_turn", **turn)
        await call(client, "delete_session", user_id=tenant.user, session_id="gone")
        return await refused(client, "add_turn", **turn), await call(client, "list_turns", user_id=tenant.user)

    told, listed = session(mcp_url, tenant.key, body)
    assert "turn_erased: idempotency_key 'k-erased' names a turn this user erased" in told, told
    assert listed["turns"] == []
