"""memex as an MCP server (streamable HTTP): its operations as tools for agents.

Each tool calls the domain function its REST route calls, and takes the fields of the route's
request model (models.py), so an argument is checked exactly as the same field of a request body.

Stateless, with JSON responses: every request stands alone, as every Lambda invocation does. The
SDK's session manager must be running (`run()`) while it serves and can be run only once: the
surface's `lifespan()` builds and runs one, and the edge's app enters it (uvicorn once per process,
Mangum around each invocation).

The Bearer key is mapped to its tenant before the transport sees the request, exactly as for the
REST API: a missing, wrong or revoked key gets 401, a request over the tenant's rate limit 429
(each MCP request counts as one, like a REST request), and the tools act for that tenant only.
Those refusals (and 503 while Postgres is unreachable, and the edge's 413 for a body over
MEMEX_MAX_BODY_BYTES) carry a JSON-RPC error, memex's code and message in it, which an MCP client
reports as it is; memex's error shape it would report as "Server returned an error response".
"""

from __future__ import annotations

import inspect
import json
import logging
from contextlib import asynccontextmanager
from copy import copy
from dataclasses import dataclass
from typing import Annotated, Any, AsyncIterator, Callable, Optional

import anyio.to_thread
import pydantic_core
from mcp.server.mcpserver import Context as ToolContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from memex import export, ingest, memories, sessions
from memex.context import Context
from memex.errors import InvalidInput, MemexError, Unauthorized
from memex.models import Flag, Id, ListOrder, MemoryIn, RecallIn, SearchIn, TurnIn
from memex.recall import recall
from memex.retrieval.served import search_request
from memex_edge.answers import (Count, Memory, MemoryDeleted, MemoryHistory, MemoryList, RecallAnswer, SearchAnswer,
                                SessionList, SessionMessageList, TurnAnswer, TurnList, TurnsDeleted)
from memex_edge.context import get_context
from memex_edge.http.admission import admit
from memex_edge.http.error_answers import DATABASE_GONE, database_lost, database_unavailable, error, field_problem
from memex_edge.http.openapi import API_VERSION
from memex_edge.http.rate_limits import RateLimited, rate_limit_headers, too_many_requests, with_headers
from memex_edge.observability import logger

PATH = "/mcp"
# JSON-RPC's code for a server's own error (-32000 to -32099); memex's code is in its `data`.
REFUSED = -32000
# The SDK logs every failed tool's message at INFO, and a tool's refusal names what it did not find
# ("session s2 of user alice not found"): the client is told, the log is not, as no refused REST
# request is logged (an erased user's id would stay in the log).
logging.getLogger("mcp.server.mcpserver.server").setLevel(logging.WARNING)

# Where the tenant the key resolved to travels from the HTTP edge to the tools: the request's scope.
CALLER = "memex.caller"

# What a client shows beside the server's name; INSTRUCTIONS is what it gives the model.
DESCRIPTION = "Long-term memory for AI agents: conversation turns in, cited context and search out, kept current."
INSTRUCTIONS = """\
memex is the user's long-term memory. Its tools take a user_id: the id your application gives \
this user, the same in every conversation (each user's memories are kept apart); a conversation \
is a session_id of your choosing. Before answering, call recall_context with the user's message \
and the session_id to get what you know about them, packed into a token budget and cited. After \
each exchange, call add_turn with the user's message and your reply: memex extracts facts, \
preferences and events from it in the background and keeps them current (a new employer replaces \
the old one; memory_history shows the chain). Use store_memory for a fact you were told to \
remember as is, search_memories to look something up, and delete_memory, delete_session or \
forget_user when the user asks you to forget."""


@dataclass(frozen=True)
class Caller:
    ctx: Context
    tenant_id: str


def _caller(tool_ctx: ToolContext) -> Caller:
    return tool_ctx.request_context.request.scope[CALLER]


# ---------------------------------------------------------------- tools

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

ID = "1-256 letters, digits or _ . : @ + - (no spaces or slashes)"
USER_ID = f"The user the memories belong to ({ID})."
AGENT_ID = "Only memories of this agent; omit for all of the user's memories."
AGENT_SESSIONS = "Only the conversations this agent sent a turn in; omit for all of the user's."
TIME = "ISO 8601; without an offset, UTC."
INCLUDE_INACTIVE = "Also superseded memories (old values), not only current ones."


class _MemexTool(Tool):
    """A tool whose argument errors read like the REST API's: `field: what is wrong`, one per
    problem, and an argument the tool does not take is refused rather than ignored."""

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **options: Any) -> "_MemexTool":
        tool = super().from_function(fn, **options)
        # NaN and Infinity refused as the request models refuse them ("Input should be a finite
        # number"): the SDK's argument model takes them, and a NaN then failed every bound in words
        # that did not say why (`importance: NaN` was "Input should be less than or equal to 1").
        taken = tool.fn_metadata.arg_model
        tool.fn_metadata.arg_model = type(taken.__name__, (taken,), {
            "__module__": taken.__module__, "model_config": {**taken.model_config, "allow_inf_nan": False}})
        return tool

    async def run(self, arguments: dict[str, Any], context: ToolContext, convert_result: bool = False) -> Any:
        # Worded as the SDK words the tool's own errors.
        failed = f"Error executing tool {self.name}"
        taken = self.fn_metadata.arg_model.model_fields
        unknown = sorted(set(arguments) - set(taken))
        if unknown:
            raise ToolError(f"{failed}: {', '.join(unknown)}: not an argument of this tool; "
                            f"it takes {', '.join(taken)}")
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"{failed}: {_problems(exc.__cause__)}") from exc.__cause__
            raise


def _problems(exc: ValidationError) -> str:
    return "; ".join(field_problem(problem) for problem in exc.errors())


def _model_fields(model: type[BaseModel], descriptions: dict[str, str]) -> list[inspect.Parameter]:
    """The request model's fields as a tool's keyword parameters, with their types, constraints
    and defaults, each described for the agent."""
    parameters = []
    for name, info in model.model_fields.items():
        field = copy(info)
        field.description = descriptions[name]
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=info.annotation,
                                            default=field))
    return parameters


def _taking(model: type[BaseModel], descriptions: dict[str, str], *extra: inspect.Parameter):
    """Gives a tool written as `fn(caller, **fields)` the signature the SDK derives its input
    schema from: the model's fields, then `extra`."""

    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        caller = inspect.Parameter("caller", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Caller)
        fn.__signature__ = inspect.Signature([caller, *_model_fields(model, descriptions), *extra],
                                             return_annotation=dict[str, Any])
        return fn

    return apply


def _answering(fn: Callable[..., dict[str, Any]], answer: type[BaseModel]) -> Callable[..., CallToolResult]:
    """The tool the SDK calls for `fn(caller, **arguments)`: the caller comes from the request,
    and the domain's refusals become tool errors that say what was wrong (the SDK reports any
    other exception as a bare failure). A 5xx says nothing internal, as over REST.

    Its result is typed by `answer`, the REST route's answer shape, which the SDK publishes as the
    tool's output schema and checks the result against. The structured result is the domain's
    answer as the route sends it: a key the domain leaves out (a queued turn's `user_id`, a channel's
    rank) stays out, where the SDK's own dump of the model would send it as null. It is read through
    `answer` as the route's is, so that what the shape sends at the edge (a memory's `valid_from`) is
    the same on both."""

    def call(tool_ctx: ToolContext, **arguments: Any) -> CallToolResult:
        caller = _caller(tool_ctx)
        try:
            found = fn(caller, **arguments)
        except ValidationError as exc:
            raise ToolError(_problems(exc)) from exc
        except InvalidInput as exc:
            # A wrong argument, named as the schema's are: `field: what is wrong`, without the code.
            raise ToolError(exc.message) from exc
        except MemexError as exc:
            if exc.status == 500:
                logger.error("domain error in a tool", extra={"code": exc.code, "detail": exc.message})
                raise ToolError("internal error") from exc
            raise ToolError(f"{exc.code}: {exc.message}") from exc
        except DATABASE_GONE as exc:
            database_lost(exc, caller.ctx)
            raise ToolError("database_unavailable: the database is unavailable; retry later") from exc
        try:
            result = answer.model_validate(found).model_dump(mode="json", exclude_unset=True)
        except ValidationError as exc:
            # memex's own answer does not fit its shape: no wrong argument, which a ValidationError the tool
            # raises is taken for (_MemexTool.run), and none of its values (a user's words) in the log
            fields = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})  # none: the answer as a whole
            logger.error("a tool's answer does not fit its shape", extra={"tool": fn.__name__, "fields": fields})
            raise ToolError("internal error") from None
        # The text beside it, for clients that read only text: most hand it to the model, so
        # compact (the SDK's indent=2 made a search's 27% more tokens).
        return CallToolResult(content=[TextContent(text=pydantic_core.to_json(result).decode())],
                              structured_content=result)

    # The SDK reads the tool's parameters from its signature and type hints: fn's, with its own
    # context where fn takes the caller.
    signature = inspect.signature(fn, eval_str=True)
    context = inspect.Parameter("tool_ctx", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext)
    parameters = [context, *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
                             for p in list(signature.parameters.values())[1:])]
    returns = Annotated[CallToolResult, answer]
    call.__name__, call.__doc__ = fn.__name__.lstrip("_"), inspect.getdoc(fn)
    call.__signature__ = signature.replace(parameters=parameters, return_annotation=returns)
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": returns}
    return call


@_taking(MemoryIn, {
    "user_id": USER_ID,
    "agent_id": "The agent that stores it, if memories are kept per agent.",
    "session_id": "The conversation it came from, if any.",
    "content": "The memory as one self-contained sentence, e.g. 'Prefers answers in bullet points'.",
    "memory_type": "semantic: a fact about the user; procedural: how to work with them; episodic: something that happened.",
    "importance": "0 to 1; ranks it above or below other memories of equal relevance.",
    "metadata": "Any JSON object kept with it (16 KB at most); search can filter on it.",
})
def _store_memory(caller: Caller, **fields: Any) -> dict[str, Any]:
    """Store one memory exactly as given (no extraction). Returns the stored memory with its id.
    To remember what was said in a conversation, prefer add_turn: it extracts the facts itself."""
    return memories.add(caller.ctx, caller.tenant_id, MemoryIn(**fields))


@_taking(SearchIn, {
    "user_id": USER_ID,
    "query": "What to look for, in natural language.",
    "agent_id": AGENT_ID,
    "top_k": "How many results, 1 to 100.",
    "alpha": "Weight of relevance against recency, 0 to 1 (default 0.95).",
    "half_life_days": "Recency half-life in days (default 365).",
    "reference_time": f"The 'now' recency and the query's 'yesterday' or 'last week' are measured from; {TIME} "
                      "With the user's offset (2026-03-02T09:00:00+09:00), days are the user's; without it, "
                      "now in the offset of the user's latest turn's timestamp (UTC if none had one).",
    "as_of": f"Read memory as it stood then: what was valid at that time, said by then; {TIME} "
             "reference_time defaults to it.",
    "filters": "Only memories of this memory_type, session_id, subject ('user' or a participant's name), "
               "or with this metadata (theirs, or that of the turn or message they came from).",
    "include_inactive": INCLUDE_INACTIVE,
    "mode": "hybrid (keyword + meaning, best), bm25 (keywords only) or vector (meaning only).",
})
def _search_memories(caller: Caller, **fields: Any) -> dict[str, Any]:
    """Search the user's memories: hybrid keyword and semantic search, ranked by relevance,
    recency and importance. Each result has its content, score and score parts, and its sources
    (the turn and message it came from). An off-topic query finds nothing. Use it to look up
    something specific or to find a memory's id; to answer the user, recall_context gives the
    context ready to use."""
    return search_request(caller.ctx, caller.tenant_id, SearchIn(**fields))


@_taking(RecallIn, {
    "user_id": USER_ID,
    "query": "The user's message or the question you are about to answer.",
    "session_id": "The current conversation: its recent messages are included after the memories.",
    "agent_id": AGENT_ID,
    "max_tokens": "Budget of the context, 64 to 32000 tokens (cl100k_base); it never exceeds it.",
    "reference_time": f"The 'now' recency and the query's 'yesterday' or 'last week' are measured from; {TIME} "
                      "With the user's offset (2026-03-02T09:00:00+09:00), days are the user's; without it, "
                      "now in the offset of the user's latest turn's timestamp (UTC if none had one).",
    "as_of": f"Read memory as it stood then: what was valid at that time, said by then; {TIME} "
             "reference_time defaults to it.",
    "require_relevant": "true: nothing at all (not even the user's facts) when no memory matches the query.",
})
def _recall_context(caller: Caller, **fields: Any) -> dict[str, Any]:
    """Context to put in your prompt before answering: the memories relevant to the query first,
    then the user's other current facts and standing instructions (whatever the query; the budget
    keeps them before the relevant memories), then the session's recent messages (the turn you just
    added among them, processed or not), as bullets within max_tokens. Returns `context` (the text),
    `citations` (memory, turn and message id and bucket of each bullet, in order; the memory id is
    null for a message whose turn is not processed yet) and `token_count`."""
    return recall(caller.ctx, caller.tenant_id, RecallIn(**fields))


WAIT = inspect.Parameter("wait", inspect.Parameter.KEYWORD_ONLY, annotation=Flag, default=Field(
    default=False, description="Process the turn before answering and return the memories it "
                               "produced, instead of queueing it (slower). A turn too large to process "
                               "in time (MEMEX_INLINE_MAX_CHARS, 300,000 characters by default) is "
                               "queued all the same, its 'error' saying why."))


@_taking(TurnIn, {
    "user_id": USER_ID,
    "session_id": f"The conversation this turn belongs to ({ID}).",
    "agent_id": "The agent taking part, if memories are kept per agent.",
    "messages": "The turn's messages in order, each {role: user|assistant|system|tool, content, "
                "name?, metadata?}.",
    "timestamp": f"When the turn happened (default now); {TIME} "
                 "Its offset is kept as the user's zone, for searches and recalls without a reference_time.",
    "metadata": "Any JSON object kept with the turn (16 KB at most).",
    "idempotency_key": "A key of yours: sending the same turn again with it stores nothing twice.",
    "user_name": "The name the user's own messages carry, when other named people take part: what "
                 "another participant says of themselves is remembered as theirs.",
}, WAIT)
def _add_turn(caller: Caller, wait: bool = False, **fields: Any) -> dict[str, Any]:
    """Send a conversation turn to memory: after each exchange, the user's message and your reply.
    memex keeps the messages, extracts facts, preferences and events from them, and supersedes
    what they replace. Queued by default (status 'queued': the memories appear within seconds);
    with wait=true, processed first (status 'processed', with the memories), unless it is too large
    to process in time or processing fails (status 'queued', with an 'error' saying why)."""
    return ingest.ingest_turn(caller.ctx, caller.tenant_id, TurnIn(**fields), wait)


LIMIT = Field(ge=1, le=500, description="Page size, 1 to 500.")
CURSOR = Field(max_length=1024, description="The next_cursor of the previous page; omit for the first page.")
LIST_ORDER = ("'written' (the default): the latest written first; 'valid_from': the earliest valid_from first, "
              "the order things were said or held from, whenever they were sent. A cursor continues its own order.")


def _list_memories(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description=USER_ID)],
    include_inactive: Annotated[Flag, Field(description=INCLUDE_INACTIVE)] = False,
    agent_id: Annotated[Optional[Id], Field(description=AGENT_ID)] = None,
    limit: Annotated[int, LIMIT] = 50,
    cursor: Annotated[Optional[str], CURSOR] = None,
    order: Annotated[ListOrder, Field(description=LIST_ORDER)] = "written",
) -> dict[str, Any]:
    """List the user's memories, the latest written first, a page at a time: to show what is stored
    about them (to answer a question, use recall_context or search_memories). Returns `memories`
    and `next_cursor` (null on the last page)."""
    return memories.list_for_user(caller.ctx, caller.tenant_id, user_id, include_inactive, limit, cursor, agent_id,
                                  order)


def _list_sessions(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description="The user whose conversations to list.")],
    agent_id: Annotated[Optional[Id], Field(description=AGENT_SESSIONS)] = None,
    limit: Annotated[int, LIMIT] = 50,
    cursor: Annotated[Optional[str], CURSOR] = None,
) -> dict[str, Any]:
    """List the user's conversations (sessions), the latest begun first, a page at a time: each
    with how many turns and messages it holds and its first and last turn's time, e.g. to find a
    conversation to read or erase. Returns `sessions` and `next_cursor` (null on the last page)."""
    return sessions.of_user(caller.ctx, caller.tenant_id, user_id, limit, cursor, agent_id)


def _session_messages(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description="The user whose conversation it is.")],
    session_id: Annotated[Id, Field(description="The conversation to read.")],
    limit: Annotated[int, LIMIT] = 50,
    cursor: Annotated[Optional[str], CURSOR] = None,
) -> dict[str, Any]:
    """Read a conversation as it was sent: its messages in the order they were said, a page at a
    time, e.g. when the user asks what was said in it. Returns `messages` and `next_cursor` (null
    on the last page)."""
    return sessions.messages(caller.ctx, caller.tenant_id, user_id, session_id, limit, cursor)


def _list_turns(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description="The user whose turns to list.")],
    agent_id: Annotated[Optional[Id], Field(description="Only the turns this agent sent.")] = None,
    session_id: Annotated[Optional[Id], Field(description="Only the turns of this conversation.")] = None,
    limit: Annotated[int, LIMIT] = 50,
    cursor: Annotated[Optional[str], CURSOR] = None,
) -> dict[str, Any]:
    """List the user's turns as they were sent, the earliest said first, a page at a time, each with
    its messages, session, agent and time: everything the user said, e.g. when they ask for their
    data. Returns `turns` and `next_cursor` (null on the last page)."""
    return export.turns(caller.ctx, caller.tenant_id, user_id, limit, cursor, agent_id, session_id)


def _memory_history(
    caller: Caller, *, memory_id: Annotated[Id, Field(description="The id of any memory of the chain.")],
) -> dict[str, Any]:
    """How a memory changed: its supersession chain, oldest first (e.g. employer Stripe, then
    Notion), each with its validity interval; for when the user asks what something was before or
    since when it holds."""
    return {"memory_id": memory_id, "history": memories.history(caller.ctx, caller.tenant_id, memory_id)}


def _delete_memory(
    caller: Caller, *, memory_id: Annotated[Id, Field(description="The memory to erase.")],
) -> dict[str, Any]:
    """Erase a memory and its past (every value it replaced), for good, never what replaced it:
    when the user asks you to forget one thing (search_memories finds its id). Forgetting a former
    employer keeps the current one; erasing the current value erases the old ones too. Returns how
    many memories were erased."""
    return {"deleted": memories.erase_memory(caller.ctx, caller.tenant_id, memory_id)}


def _delete_session(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description="The user whose conversation it is: a session id names one user's "
                                             "session.")],
    session_id: Annotated[Id, Field(description="The conversation to erase.")],
) -> dict[str, Any]:
    """Erase a conversation: its turns, its messages and every memory drawn from them, for good,
    when the user asks you to forget it (list_sessions names them). Returns how many turns and
    memories were erased (0 and 0 for a session this user does not have)."""
    return {"deleted": memories.erase_session(caller.ctx, caller.tenant_id, session_id, user_id)}


def _count_memories(
    caller: Caller, *,
    user_id: Annotated[Id, Field(description=USER_ID)],
    agent_id: Annotated[Optional[Id], Field(description=AGENT_ID)] = None,
    include_inactive: Annotated[Flag, Field(description=INCLUDE_INACTIVE)] = False,
) -> dict[str, Any]:
    """How many current memories the user has (with include_inactive, old values too)."""
    return {"count": memories.count(caller.ctx, caller.tenant_id, user_id, agent_id, include_inactive)}


def _forget_user(
    caller: Caller, *, user_id: Annotated[Id, Field(description="The user to forget entirely.")],
) -> dict[str, Any]:
    """Erase everything memex holds about the user: every turn, message and memory. It cannot be
    undone: only when the user asks you to forget everything about them. Returns how many turns
    and memories were erased (a turn's messages go with it); with `status` "erasing", a user with a long
    history is still being erased: call it again to go on."""
    erased = memories.erase_user(caller.ctx, caller.tenant_id, user_id)
    return {"deleted": erased.counts, **({} if erased.finished else {"status": "erasing"})}


def build_server() -> MCPServer:
    tools = [_MemexTool.from_function(_answering(fn, answer), title=title, annotations=annotations,
                                      structured_output=True)
             for fn, answer, title, annotations in [
                 (_store_memory, Memory, "Store a memory", WRITE),
                 (_search_memories, SearchAnswer, "Search memories", READ),
                 (_recall_context, RecallAnswer, "Recall context for a prompt", READ),
                 (_add_turn, TurnAnswer, "Add a conversation turn", WRITE),
                 (_list_memories, MemoryList, "List a user's memories", READ),
                 (_list_sessions, SessionList, "List a user's conversations", READ),
                 (_session_messages, SessionMessageList, "Read a conversation", READ),
                 (_list_turns, TurnList, "List a user's turns", READ),
                 (_memory_history, MemoryHistory, "History of a memory", READ),
                 (_delete_memory, MemoryDeleted, "Delete a memory", ERASE),
                 (_delete_session, TurnsDeleted, "Delete a conversation", ERASE),
                 (_count_memories, Count, "Count a user's memories", READ),
                 (_forget_user, TurnsDeleted, "Forget a user", ERASE),
             ]]
    # log_level: the SDK configures the root logger when nothing has; at WARNING, as Python would.
    return MCPServer("memex", title="memex", version=API_VERSION, description=DESCRIPTION, instructions=INSTRUCTIONS,
                     tools=tools, log_level="WARNING")


# ---------------------------------------------------------------- HTTP

class McpApp:
    """The ASGI surface serving the server's tools at PATH (a `memex_edge.http.surfaces.Surface`).
    `loopback_only`: refuse requests whose Host or Origin is not loopback (DNS rebinding), for a
    server on 127.0.0.1; behind API Gateway the host is the API's."""

    def __init__(self, server: MCPServer, provide: Callable[[], Context] = get_context, *,
                 loopback_only: bool = False):
        self.server = server
        self.provide = provide
        self.host = "127.0.0.1" if loopback_only else "0.0.0.0"
        self._transport: Any = None  # the SDK's app, while the lifespan runs

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """The SDK's session manager, running for as long as the surface serves. A manager can be
        run only once, and Mangum enters the lifespan around every invocation, so each entry
        builds a manager of its own."""
        if self._transport is not None:
            raise RuntimeError("the MCP surface is already serving: one lifespan at a time")
        transport = self.server.streamable_http_app(
            streamable_http_path=PATH, stateless_http=True, json_response=True, host=self.host,
            max_request_body_size=self.provide().settings.max_body_bytes,
        )
        async with transport.router.lifespan_context(transport):
            self._transport = transport
            try:
                yield
            finally:
                self._transport = None

    def refusal(self, response: JSONResponse) -> JSONResponse:
        """A refusal the edge made before the request reached the surface (a body over the
        limit), as the JSON-RPC error an MCP client reports."""
        return _jsonrpc(response)

    @property
    def serving(self) -> bool:
        """Whether the lifespan is entered and the session manager running."""
        return self._transport is not None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        method = scope["method"]
        if method != "POST":
            # Only POST is served, and any other method is answered here, before the key is read, as the
            # REST routes answer one they do not take. GET: the SDK would open a server-to-client stream
            # that nothing ever writes to or ends (stateless), holding the connection, or a Lambda
            # invocation, until it times out; MCP lets a server without one say so with 405. DELETE: no
            # session to end. The rest (HEAD, PUT, ...): the SDK's 405 named GET and DELETE in its Allow,
            # and a stateless one starts a server for them whose task then fails on its closed streams
            # (modelcontextprotocol/python-sdk#1269).
            why = ("no server-to-client stream: this server is stateless" if method == "GET"
                   else f"{method} is not a method of {PATH}; it takes POST")
            response = error(405, "method_not_allowed", why, headers={"Allow": "POST"})
            return await response(scope, receive, send)
        transport = self._transport
        if transport is None:
            raise RuntimeError("the MCP surface serves only inside its lifespan (create_app enters it)")
        ctx = self.provide()
        try:
            tenant_id, decision = await anyio.to_thread.run_sync(admit, ctx, Request(scope).headers)
        except Unauthorized as exc:
            response = error(exc.status, exc.code, exc.message, headers={"WWW-Authenticate": "Bearer"})
            return await _jsonrpc(response)(scope, receive, send)
        except RateLimited as exc:
            return await _jsonrpc(too_many_requests(exc.decision))(scope, receive, send)
        except DATABASE_GONE as exc:
            return await _jsonrpc(database_unavailable(exc, ctx))(scope, receive, send)
        if decision is not None:
            send = with_headers(send, lambda: rate_limit_headers(decision))
        await transport({**scope, CALLER: Caller(ctx, tenant_id)}, receive, send)


def _jsonrpc(refusal: JSONResponse) -> JSONResponse:
    """A refusal in memex's error shape as a JSON-RPC error, with its status and headers (Retry-After,
    WWW-Authenticate). Its id is null: the request was refused before its body was read."""
    shape = json.loads(refusal.body)["error"]
    headers = {name: value for name, value in refusal.headers.items() if name not in ("content-length", "content-type")}
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
        "code": REFUSED, "message": f"{shape['code']}: {shape['message']}",
        "data": {**shape, "status": refusal.status_code}}}, status_code=refusal.status_code, headers=headers)
