"""The v1 wire shapes: what the client sends and what the service answers.

Requests refuse unknown fields, as the service does, so a misspelt argument fails before it is
sent. Their limits (id characters, `top_k` 1-100, ...) are left to the service, which owns them:
a value it refuses comes back as `InvalidInputError` naming the field. Responses accept fields this
version does not know, so a newer service does not break an older client.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

MemoryType = Literal["episodic", "semantic", "procedural"]
SearchMode = Literal["hybrid", "bm25", "vector"]
Role = Literal["user", "assistant", "system", "tool"]
TurnStatus = Literal["queued", "processing", "processed", "failed"]


class _Request(BaseModel):
    # NaN and Infinity are no JSON: kept as they are (not turned into null) so that encoding the
    # body refuses them, and refused outright in the fields declared as numbers.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, ser_json_inf_nan="constants")

    def wire(self) -> dict[str, Any]:
        """The JSON body: unset optional fields are left out, so the service's defaults apply."""
        return self.model_dump(mode="json", exclude_none=True)


class _Response(BaseModel):
    model_config = ConfigDict(extra="allow")


# Requests


class Message(_Request):
    role: Role
    content: str
    name: Optional[str] = None
    # Kept on the message and handed back in every memory's `sources`: a place for your own ids.
    metadata: dict[str, Any] = Field(default_factory=dict)


class TurnRequest(_Request):
    user_id: str
    session_id: str
    agent_id: Optional[str] = None
    messages: list[Message]
    timestamp: Optional[datetime] = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    idempotency_key: Optional[str] = None
    # Who the user is among the messages' `name`s: another named speaker's facts become theirs.
    user_name: Optional[str] = None


class MemoryRequest(_Request):
    user_id: str
    agent_id: Optional[str] = None
    session_id: Optional[str] = None
    content: str
    memory_type: Optional[MemoryType] = None
    importance: Optional[float] = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class SearchFilters(_Request):
    memory_type: Optional[MemoryType] = None
    session_id: Optional[str] = None
    # "user" for the user's own memories, or another participant's name.
    subject: Optional[str] = None
    metadata: Optional[dict[str, Any]] = None


class SearchRequest(_Request):
    user_id: str
    query: str
    agent_id: Optional[str] = None
    top_k: Optional[int] = None
    alpha: Optional[float] = None
    half_life_days: Optional[float] = None
    reference_time: Optional[datetime] = None
    as_of: Optional[datetime] = None
    filters: Optional[SearchFilters] = None
    include_inactive: Optional[bool] = None
    mode: Optional[SearchMode] = None


class RecallRequest(_Request):
    user_id: str
    query: str
    session_id: Optional[str] = None
    agent_id: Optional[str] = None
    max_tokens: Optional[int] = None
    reference_time: Optional[datetime] = None
    as_of: Optional[datetime] = None
    require_relevant: Optional[bool] = None


# Responses


class Source(_Response):
    """Where a memory came from: the turn, the message and the metadata the client sent with it."""

    turn_id: Optional[str] = None
    message_id: Optional[str] = None
    session_id: Optional[str] = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Memory(_Response):
    id: str
    user_id: str
    agent_id: Optional[str] = None
    session_id: Optional[str] = None
    content: str
    memory_type: MemoryType
    type: str
    key: Optional[str] = None
    value: Optional[str] = None
    importance: float
    confidence: float
    active: bool
    valid_from: datetime
    valid_to: Optional[datetime] = None
    supersedes: Optional[str] = None
    created_at: datetime
    # "user", or the name of the participant the memory is about.
    subject: str = "user"
    metadata: dict[str, Any] = Field(default_factory=dict)
    sources: list[Source] = Field(default_factory=list)


class TurnResult(_Response):
    """A turn as stored: `memories` is filled once it is processed. `error` says why inline
    processing (`wait=True`) failed, the turn then being queued, or why processing failed."""

    turn_id: str
    status: TurnStatus
    memories: list[Memory] = Field(default_factory=list)
    error: Optional[str] = None
    # The turn as it was sent, when read back (`get_turn`, or `add_turn` with `wait`); else None.
    user_id: Optional[str] = None
    session_id: Optional[str] = None
    agent_id: Optional[str] = None
    occurred_at: Optional[datetime] = None
    metadata: Optional[dict[str, Any]] = None


class ScoreParts(_Response):
    score: float
    relevance: float
    recency: float
    importance: float
    bm25: Optional[float] = None
    similarity: Optional[float] = None
    rerank: Optional[float] = None
    bm25_rank: Optional[int] = None
    vector_rank: Optional[int] = None
    current_for: Optional[str] = None  # a current fact ranked just above the message it made stale
    ended: Optional[str] = None  # first: the news that ended the value of a key the question names (that key)
    past_for: Optional[str] = None  # a replaced fact, for a question about the past, above what led to it
    chain: Optional[str] = None  # first for a question about a chain of values: "before", "first" or "began"
    kind_order: Optional[str] = None  # placed by the order of the kind asked: "first", "after" or "lead"
    introduces: Optional[str] = None  # who someone is to the user, below what else is said of them: the name
    below_theirs: Optional[str] = None  # the user's own, below the best memory of the person asked by name
    said_within: Optional[str] = None  # a message said in the period a question asks about ("start/end")
    repeat_of: Optional[str] = None  # a line said again, below every distinct line: the one it repeats
    learned: Optional[float] = None  # the learned order's value: the best 50 are ranked by it


class SearchHit(Memory):
    score: float
    score_parts: ScoreParts
    # For a message, the values of the facts it states (drawn from it, or said again) that a later message
    # replaced or ended ("Lisbon" for "I live in Lisbon." after the move to Berlin): not true now. Empty
    # otherwise, and from a server before it.
    no_longer_current: list[str] = Field(default_factory=list)


class SearchResponse(_Response):
    results: list[SearchHit]
    query: str
    total: int
    # What the search had to do without (an embedder or reranker that failed), empty when nothing.
    degraded: list[str] = Field(default_factory=list)


class Citation(_Response):
    memory_id: Optional[str] = None  # None for a session's message whose turn is not processed (yet)
    turn_id: Optional[str] = None
    message_id: Optional[str] = None
    score: float
    snippet: str
    bucket: Optional[str] = None  # facts, relevant or recent


class RecallResponse(_Response):
    context: str
    citations: list[Citation]
    token_count: int
    degraded: list[str] = Field(default_factory=list)


class MemoryPage(_Response):
    memories: list[Memory]
    next_cursor: Optional[str] = None


class Session(_Response):
    """One of a user's sessions: how many turns and messages were sent in it, and when."""

    session_id: str
    turns: int
    messages: int
    started_at: datetime
    last_at: datetime


class SessionPage(_Response):
    user_id: str
    sessions: list[Session]
    next_cursor: Optional[str] = None


class SessionMessage(_Response):
    id: str
    turn_id: str
    position: int
    role: str
    name: Optional[str] = None
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    occurred_at: datetime


class SessionMessagePage(_Response):
    user_id: str
    session_id: str
    messages: list[SessionMessage]
    next_cursor: Optional[str] = None


class TurnMessage(_Response):
    id: str
    role: str
    name: Optional[str] = None
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class UserTurn(_Response):
    """One of a user's turns as it was sent, with its messages."""

    turn_id: str
    session_id: str
    agent_id: Optional[str] = None
    occurred_at: datetime
    utc_offset: Optional[int] = None
    received_at: datetime
    status: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    idempotency_key: Optional[str] = None
    user_name: Optional[str] = None
    messages: list[TurnMessage]


class TurnPage(_Response):
    user_id: str
    turns: list[UserTurn]
    next_cursor: Optional[str] = None


class MemoryHistory(_Response):
    memory_id: str
    history: list[Memory]


class Count(_Response):
    count: int


class Erasure(_Response):
    """How many of each kind of record were erased (`turns`, `memories`, ...)."""

    deleted: dict[str, int]
    # "erasing" (HTTP 202): a user with a long history is not erased yet (until then the API answers
    # 409 `user_being_erased` for them); delete_user again goes on with it, None once it has finished.
    status: Optional[str] = None


class BackfillFailure(_Response):
    line: Optional[int] = None  # the line's number, from 1 (None: not known)
    offset: int  # its byte offset in the file
    reason: str  # why, never what the line says


class Backfill(_Response):
    backfill_id: str
    kind: str
    status: str
    source: Optional[str] = None
    user_id: Optional[str] = None
    total: int
    done: int
    failed: int
    remaining: int
    already_stored: int = 0  # of `done`: lines an earlier import had stored (nothing stored twice)
    erased: int = 0  # lines naming a turn their user erased: not stored, neither done nor failed
    error: Optional[str] = None
    failures: list[BackfillFailure] = []  # the first failed lines (an import's), in the file's order
    failures_not_kept: int = 0  # how many more lines failed than `failures` lists
    created_at: datetime
    updated_at: datetime


class BackfillPage(_Response):
    backfills: list[Backfill]
    next_cursor: Optional[str] = None


class Health(_Response):
    """`status` is "ok", or "error" (with HTTP 503) when the database is down; each dependency's
    state is "ok", "unconfigured" or "error: <kind>"; `degraded` names what runs without one."""

    status: str
    db: str
    queue: Optional[str] = None
    embed: Optional[str] = None
    llm: Optional[str] = None
    rerank: Optional[str] = None
    # The LLM's query split at search time: also "error: <kind>, back-off <n>s left" while searches skip it.
    split: Optional[str] = None
    degraded: list[str] = Field(default_factory=list)
    # Which implementation of each part is configured ("local:all-MiniLM-L6-v2", "offline-rules").
    embedder: Optional[str] = None
    extractor: Optional[str] = None
    reranker: Optional[str] = None
