"""The answer shapes of the wire contract, as the routes declare them (`response_model`), so that
/openapi.json describes what the API really sends and a client can be typed from it.

The domain builds these answers as dicts; the models only declare and check them, but for one
edge reading: a memory's `valid_from` is when it began to hold (`Memory._holding_from`). Each allows
extra keys, so a key the domain adds is never dropped on the way out (tests/test_openapi.py
fails instead, until it is declared here), and the routes serialize with `exclude_unset`, so a
key the domain leaves out (a turn's `error`, a channel's rank) stays out rather than becoming null.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memex.db import validity
from memex.models import MemoryType

# Times leave the domain as RFC 3339 strings in UTC with Z already (memex.models.wire_time);
# declared as such rather than re-parsed.
Time = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
TurnStatus = Literal["queued", "processing", "processed", "failed"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorDetail(_Answer):
    code: str = Field(description="Stable, machine-readable: not_found, validation_error, unauthorized, "
                                  "idempotency_conflict, payload_too_large, database_unavailable, ...")
    message: str = Field(description="For people; a 422 names each field: `body.messages.0.role: ...`.")


class ErrorBody(_Answer):
    """Every error of the v1 API."""
    error: ErrorDetail


class SeedErrorBody(_Answer):
    """Every error of a compatibility route: the seed's `detail` (a list of problems for a 422, as
    FastAPI words them, else a string), and memex's `error` beside it."""
    detail: Any
    error: ErrorDetail


class Source(_Answer):
    turn_id: Optional[str]
    message_id: Optional[str]
    session_id: Optional[str]
    metadata: dict[str, Any] = Field(description="The metadata the client sent with the message.")


class Memory(_Answer):
    id: str
    user_id: str
    agent_id: Optional[str]
    session_id: Optional[str]
    content: str
    memory_type: MemoryType
    type: str = Field(description="fact, preference, opinion, event, relation, message (episodic) or note "
                                  "(written directly)")
    key: Optional[str] = Field(description="Canonical snake_case key of an extracted fact, e.g. employer")
    value: Optional[str]
    importance: float
    confidence: float
    active: bool = Field(description="False once superseded")
    valid_from: Time = Field(description="When it began to hold: when it was said, or the earlier time its words "
                                         "said (\"I moved to Paris last week.\")")
    valid_to: Optional[Time]
    supersedes: Optional[str] = Field(description="The latest memory this one replaced")
    created_at: Time
    subject: str = Field(description='Whom the memory is about: "user", or the name of another participant '
                                     "who said it")
    metadata: dict[str, Any]
    sources: list[Source]

    @model_validator(mode="before")
    @classmethod
    def _holding_from(cls, memory: Any) -> Any:
        """The domain's memory is dated when it was said (`valid_from`, by which a key's history is ordered),
        with `holds_from` when its words said an earlier time it began: the answer's `valid_from` is when it
        began to hold, as `as_of` reads it (db/validity.py)."""
        if not isinstance(memory, dict) or "holds_from" not in memory:
            return memory
        answer = {name: value for name, value in memory.items() if name != "holds_from"}
        return {**answer, "valid_from": validity.began_at(memory)}


class ScoreParts(_Answer):
    """Why a result has its place: its score and what it was made of, and, when a rule of the search
    moved it, the key naming that rule. Every key any part of retrieval puts in is declared here
    (tests/test_score_parts.py walks them)."""
    score: float = Field(description="The result's score, as the list is ordered: 0.9·(alpha·relevance + "
                                     "(1−alpha)·recency) + 0.1·importance, or, for a result a rule named below "
                                     "moved, the score of the place it moved it to")
    relevance: float = Field(description="How well it answers the query, before recency and importance are "
                                         "blended in: the channels' ranks fused, with the search's cues "
                                         "(docs/retrieval.md), or the reranker's score when one ran; 1 for a message said "
                                         "in a period the question asks about")
    recency: float = Field(description="0.5 ** (age in days / half_life_days), the age counted from when it "
                                       "was said to the request's reference_time")
    importance: float = Field(description="The memory's importance")
    bm25: Optional[float] = Field(description="The keyword channel's BM25 score; null when it did not find it")
    similarity: Optional[float] = Field(description="The cosine similarity of the query's vector and the "
                                                    "memory's; null when the vector channel did not find it")
    rerank: Optional[float] = Field(description="The reranker's score; null when no reranker ran")
    bm25_rank: Optional[int] = Field(None, description="Its rank in the keyword channel (1 the best), null when "
                                     "it did not find it or did not run; absent when the mode uses no such channel")
    vector_rank: Optional[int] = Field(None, description="Its rank in the vector channel (1 the best), null when "
                                       "it did not find it or did not run; absent when the mode uses no such channel")
    current_for: Optional[str] = Field(None, description="Set on a current fact ranked just above a message "
                                       "whose fact it replaced: that message's id")
    ended: Optional[str] = Field(None, description="Set on a message placed first because it ended the value of "
                                 "a key the question names with nothing after it (\"I left Feedzai.\" for \"where "
                                 "does she work?\"), or on the current fact under another key that took it back "
                                 "(\"The user is out of work.\"): that key")
    past_for: Optional[str] = Field(None, description="Set on a replaced fact returned for a question about the "
                                    "past, ranked just above the memory that led to it: that memory's id; null "
                                    "when the question asked about it by itself, nothing leading to it")
    chain: Optional[str] = Field(None, description="Set on the fact placed first for a question about a chain of "
                                 "values: \"before\" (what came before a named value: \"where did she work before "
                                 "Shopify?\"), \"first\" (\"her first job\") or \"began\" (when a named value "
                                 "began: \"when did she move to Dublin?\")")
    kind_order: Optional[str] = Field(None, description="Set on a fact placed by the order of the kind of fact "
                                      "the question names: \"first\" (the number of children for \"Does she have "
                                      "kids?\", the job to come for \"What's her next job?\"), \"after\" (the "
                                      "job to come, right after the current job) or \"lead\" (the kind's facts "
                                      "first of all, for a question whether they say something: \"Is she dating "
                                      "a doctor?\")")
    introduces: Optional[str] = Field(None, description="Set on the fact that says who someone is to the user "
                                      "(\"The user's best friend is named Sarah.\"), placed right below the best "
                                      "memory that says something else of them: that person's name")
    below_theirs: Optional[str] = Field(None, description="Set on the user's own memory placed right below the "
                                        "best memory that names the person a question asks about by name (\"Where "
                                        "does Sarah live?\"): that name")
    said_within: Optional[str] = Field(None, description="Set on a message returned for a question that asks "
                                       "only what was said in a period (\"what did I tell you yesterday?\"): that "
                                       "period, as an ISO 8601 interval start/end")
    repeat_of: Optional[str] = Field(None, description="Set on a message that reads as one ranked above it (the "
                                     "same words; for words that count from the day said, the same day), moved "
                                     "below every distinct line: that line's id; its score is at most the last "
                                     "distinct line's")
    learned: Optional[float] = Field(None, description="The learned order's value (hybrid, default blend, both "
                                     "channels run; else null): the best 50 are ranked by it, their scores handed "
                                     "out again in that order")


class ScoredMemory(Memory):
    score: float
    score_parts: ScoreParts
    no_longer_current: list[str] = Field(description="For a message: the values of the facts it states (drawn "
                                         "from it, or said again in the words they were drawn from while they held) "
                                         "that a later message replaced or ended and that are not current again (\"Lisbon\" for \"I live in Lisbon.\" "
                                         "once the user said they moved to Berlin), so that it is not read as true "
                                         "now; empty when none, and for a memory that is no message")


class SearchAnswer(_Answer):
    results: list[ScoredMemory]
    query: str
    total: int
    degraded: list[str] = Field(description="Dependencies that were unavailable: embed, rerank, llm")


class Citation(_Answer):
    memory_id: Optional[str] = Field(description="Null for a message of the session whose turn is not processed "
                                     "(yet: queued, or failed before it was stored as a memory); its "
                                     "`turn_id` and `message_id` are set")
    turn_id: Optional[str]
    message_id: Optional[str]
    score: float = Field(description="The search's score; 0 for a fact or message the query did not find")
    snippet: str
    bucket: str = Field(description="Why it is in the context: facts (the user's current facts), "
                                    "relevant (found by the query) or recent (the session's latest messages)")


class RecallAnswer(_Answer):
    context: str
    citations: list[Citation]
    token_count: int
    degraded: list[str]


class TurnAnswer(_Answer):
    turn_id: str
    status: TurnStatus
    user_id: str = Field(None, description="The turn's user, as sent; it and the four fields after it are in "
                                           "a GET's answer and a POST's with `wait`, not in a queued POST's")
    session_id: str = Field(None, description="The turn's session, as sent")
    agent_id: Optional[str] = Field(None, description="The turn's agent, as sent (null without one)")
    occurred_at: Time = Field(None, description="Its `timestamp`, or when it was received")
    metadata: dict[str, Any] = Field(None, description="The turn's own metadata, as sent")
    memories: list[Memory] = Field(None, description="Present once asked for (GET) or processed inline")
    error: str = Field(None, description="Why processing failed or was deferred; absent otherwise")


class MemoryList(_Answer):
    memories: list[Memory]
    next_cursor: Optional[str] = Field(description="Pass as `cursor` for the next page; null on the last")


class SessionMessage(_Answer):
    id: str
    turn_id: str
    position: int = Field(description="The message's place in its turn, from 0")
    role: str
    name: Optional[str]
    content: str
    metadata: dict[str, Any]
    occurred_at: Time = Field(description="Its turn's time (`timestamp`, or when it was received)")


class SessionMessageList(_Answer):
    user_id: str
    session_id: str
    messages: list[SessionMessage] = Field(description="In the order they were said")
    next_cursor: Optional[str] = Field(description="Pass as `cursor` for the next page; null on the last")


class Session(_Answer):
    session_id: str
    turns: int = Field(description="How many turns were sent in it")
    messages: int = Field(description="How many messages those turns hold")
    started_at: Time = Field(description="Its first turn's time (`timestamp`, or when it was received)")
    last_at: Time = Field(description="Its last turn's time")


class SessionList(_Answer):
    user_id: str
    sessions: list[Session] = Field(description="The latest begun first")
    next_cursor: Optional[str] = Field(description="Pass as `cursor` for the next page; null on the last")


class TurnMessage(_Answer):
    id: str
    role: str
    name: Optional[str]
    content: str
    metadata: dict[str, Any]


class UserTurn(_Answer):
    turn_id: str
    session_id: str
    agent_id: Optional[str]
    occurred_at: Time = Field(description="Its `timestamp`, or when it was received")
    utc_offset: Optional[int] = Field(description="The offset from UTC, in minutes, its `timestamp` was sent "
                                                  "with; null when it carried none")
    received_at: Time = Field(description="When memex stored it")
    status: TurnStatus
    metadata: dict[str, Any]
    idempotency_key: Optional[str]
    user_name: Optional[str] = Field(description="A `user_name` its messages are said by whom they were under "
                                                 "(the name of the user's own, else \"user\"); null when every "
                                                 "role-user message is the user's")
    messages: list[TurnMessage] = Field(description="In the order they were sent; without those erased with "
                                                    "their episodic memory")


class TurnList(_Answer):
    user_id: str
    turns: list[UserTurn] = Field(description="The earliest said first (of turns said at one time, the first "
                                              "received first)")
    next_cursor: Optional[str] = Field(description="Pass as `cursor` for the next page; null on the last")


class MemoryHistory(_Answer):
    memory_id: str
    history: list[Memory] = Field(description="The supersession chain, oldest first")


class Count(_Answer):
    count: int


class MemoryErased(_Answer):
    memories: int


class TurnsErased(_Answer):
    turns: int
    memories: int


class UserErasing(_Answer):
    deleted: TurnsErased = Field(description="What this request erased")
    status: Literal["erasing"] = Field(description="The user has more than a request erases in its time: what is "
                                                   "left goes on at the next DELETE of the user, or at the sweep "
                                                   "within minutes; until it has finished, a request naming the user "
                                                   "gets 409 `user_being_erased`")


class MemoryDeleted(_Answer):
    deleted: MemoryErased


class TurnsDeleted(_Answer):
    deleted: TurnsErased


class BackfillFailure(_Answer):
    line: Optional[int] = Field(description="The line's number, from 1 (`sed -n LINEp FILE` shows it); null for a "
                                            "job started before memex counted lines")
    offset: int = Field(description="Its byte offset in the file (`tail -c +OFFSET+1 FILE | head -1` shows it)")
    reason: str = Field(description="Why, as the log says it; never what the line says")


class Backfill(_Answer):
    backfill_id: str
    kind: str
    status: Literal["running", "stalled", "done", "failed"] = Field(
        description="stalled: running, but no chunk has finished for MEMEX_BACKFILL_STALLED_AFTER_SECONDS "
                    "(`memex backfill FILE --resume ID` goes on from where it stopped)")
    source: Optional[str]
    user_id: Optional[str]
    total: int
    done: int
    failed: int
    remaining: int
    already_stored: int
    erased: int = Field(description="Lines naming a turn their user erased (a session's erasure): not stored, "
                                    "neither done nor failed")
    error: Optional[str]
    failures: list[BackfillFailure] = Field(description="The first failed lines, in the file's order")
    failures_not_kept: int = Field(description="How many more lines failed than `failures` lists")
    created_at: Time
    updated_at: Time


class BackfillList(_Answer):
    backfills: list[Backfill] = Field(description="The newest first")
    next_cursor: Optional[str] = Field(description="Pass as `cursor` for the next page; null on the last")


class Health(_Answer):
    status: Literal["ok", "error"]
    db: str
    queue: str
    embed: str
    llm: str
    rerank: str
    # The LLM's query split at search time: "ok", "unconfigured", or "error: <type>, back-off <n>s left"
    # while searches skip it after a failure (retrieval/multihop.py).
    split: str
    degraded: list[str]
    embedder: str
    extractor: str
    reranker: str
