"""Each v1 operation as data: method, path, query, body, and the model its answer is read into.

The sync and async clients share these, so they differ only in how they wait on the network.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Iterable, Optional, TypeVar, Union
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from memex_client import models
from memex_client.errors import from_response, unexpected

T = TypeVar("T", bound=BaseModel)

MessageLike = Union[models.Message, dict[str, Any]]


@dataclass(frozen=True)
class Operation(Generic[T]):
    method: str
    path: str
    answer: type[T]
    params: dict[str, Any] = field(default_factory=dict)
    body: Optional[dict[str, Any]] = None
    # Whether sending it twice does no more than sending it once (see retries.py).
    replay_safe: bool = True
    # Statuses besides 2xx whose body is still the answer (a health report while degraded).
    also_ok: frozenset[int] = frozenset()

    def sent(self) -> dict[str, Any]:
        """What httpx's `request` takes besides the method and path: the query, and the body as JSON in
        UTF-8 as httpx would write it, but for a surrogate without its pair (a lone "\\ud800", half of an
        emoji cut short), which UTF-8 cannot encode and httpx raised UnicodeEncodeError for: it goes
        escaped, as JSON writes it, and the service refuses it naming its field (`messages.0.content`)."""
        if self.body is None:
            return {"params": self.params}
        text = json.dumps(self.body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        # The lone surrogates are all UTF-8 cannot encode, and the error handler, called only for them,
        # writes each as JSON escapes it ("\\ud800"): inside a string, where json.dumps left it.
        content = text.encode("utf-8", errors="backslashreplace")
        return {"params": self.params, "content": content, "headers": {"content-type": "application/json"}}

    def is_answer(self, response: httpx.Response) -> bool:
        return response.is_success or response.status_code in self.also_ok

    def read(self, response: httpx.Response) -> T:
        if response.is_success:
            try:
                return self.answer.model_validate(response.json())
            except ValueError as problem:  # json's and pydantic's errors both are
                raise unexpected(response, self.answer.__name__, problem) from problem
        if response.status_code in self.also_ok:
            try:
                return self.answer.model_validate(response.json())
            except ValueError:
                pass  # not the service's report (a proxy's page): an error like any other
        raise from_response(response)


def _segment(value: str) -> str:
    # Ids may hold ":" "@" "+": each must stay inside its one path segment, as given.
    return quote(value, safe="")


def _query(**params: Any) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}


def add_turn(user_id: str, session_id: str, messages: Iterable[MessageLike], *, wait: bool,
             agent_id: Optional[str], timestamp: Optional[datetime], metadata: Optional[dict[str, Any]],
             idempotency_key: Optional[str], user_name: Optional[str] = None) -> Operation[models.TurnResult]:
    turn = models.TurnRequest(
        user_id=user_id, session_id=session_id, agent_id=agent_id,
        messages=[models.Message.model_validate(m) for m in messages], timestamp=timestamp,
        metadata=metadata or {},
        # A key of the client's own when none is given: a retried turn is then stored once.
        idempotency_key=idempotency_key or f"memex-client:{uuid.uuid4()}", user_name=user_name,
    )
    return Operation("POST", "/v1/turns", models.TurnResult, params=_query(wait=True if wait else None),
                     body=turn.wire())


def get_turn(turn_id: str) -> Operation[models.TurnResult]:
    return Operation("GET", f"/v1/turns/{_segment(turn_id)}", models.TurnResult)


def add_memory(user_id: str, content: str, *, agent_id: Optional[str], session_id: Optional[str],
               memory_type: Optional[str], importance: Optional[float],
               metadata: Optional[dict[str, Any]]) -> Operation[models.Memory]:
    memory = models.MemoryRequest(user_id=user_id, content=content, agent_id=agent_id, session_id=session_id,
                                  memory_type=memory_type, importance=importance, metadata=metadata or {})
    # No idempotency key on this route: a second send would store a second memory.
    return Operation("POST", "/v1/memories", models.Memory, body=memory.wire(), replay_safe=False)


def search(user_id: str, query: str, **options: Any) -> Operation[models.SearchResponse]:
    request = models.SearchRequest(user_id=user_id, query=query, **options)
    return Operation("POST", "/v1/search", models.SearchResponse, body=request.wire())


def recall(user_id: str, query: str, **options: Any) -> Operation[models.RecallResponse]:
    request = models.RecallRequest(user_id=user_id, query=query, **options)
    return Operation("POST", "/v1/recall", models.RecallResponse, body=request.wire())


def list_page(user_id: str, *, include_inactive: bool, agent_id: Optional[str], limit: Optional[int],
              cursor: Optional[str], order: Optional[str]) -> Operation[models.MemoryPage]:
    return Operation("GET", f"/v1/users/{_segment(user_id)}/memories", models.MemoryPage,
                     params=_query(include_inactive=include_inactive or None, agent_id=agent_id, limit=limit,
                                   cursor=cursor, order=order))


def sessions_page(user_id: str, *, agent_id: Optional[str], limit: Optional[int],
                  cursor: Optional[str]) -> Operation[models.SessionPage]:
    return Operation("GET", f"/v1/users/{_segment(user_id)}/sessions", models.SessionPage,
                     params=_query(agent_id=agent_id, limit=limit, cursor=cursor))


def turns_page(user_id: str, *, agent_id: Optional[str], session_id: Optional[str], limit: Optional[int],
               cursor: Optional[str]) -> Operation[models.TurnPage]:
    return Operation("GET", f"/v1/users/{_segment(user_id)}/turns", models.TurnPage,
                     params=_query(agent_id=agent_id, session_id=session_id, limit=limit, cursor=cursor))


def session_messages_page(session_id: str, user_id: str, *, limit: Optional[int],
                          cursor: Optional[str]) -> Operation[models.SessionMessagePage]:
    return Operation("GET", f"/v1/sessions/{_segment(session_id)}/messages", models.SessionMessagePage,
                     params=_query(user_id=user_id, limit=limit, cursor=cursor))


def get_memory(memory_id: str) -> Operation[models.Memory]:
    return Operation("GET", f"/v1/memories/{_segment(memory_id)}", models.Memory)


def memory_history(memory_id: str) -> Operation[models.MemoryHistory]:
    return Operation("GET", f"/v1/memories/{_segment(memory_id)}/history", models.MemoryHistory)


def count_memories(user_id: str, agent_id: Optional[str], include_inactive: bool = False) -> Operation[models.Count]:
    return Operation("GET", "/v1/memories/count", models.Count,
                     params=_query(user_id=user_id, agent_id=agent_id, include_inactive=include_inactive or None))


def delete_memory(memory_id: str) -> Operation[models.Erasure]:
    return Operation("DELETE", f"/v1/memories/{_segment(memory_id)}", models.Erasure)


def delete_session(session_id: str, user_id: str) -> Operation[models.Erasure]:
    return Operation("DELETE", f"/v1/sessions/{_segment(session_id)}", models.Erasure,
                     params=_query(user_id=user_id))


def delete_user(user_id: str) -> Operation[models.Erasure]:
    return Operation("DELETE", f"/v1/users/{_segment(user_id)}", models.Erasure)


def get_backfill(backfill_id: str) -> Operation[models.Backfill]:
    return Operation("GET", f"/v1/backfills/{_segment(backfill_id)}", models.Backfill)


def backfills_page(user_id: Optional[str], *, limit: Optional[int],
                   cursor: Optional[str]) -> Operation[models.BackfillPage]:
    return Operation("GET", "/v1/backfills", models.BackfillPage,
                     params=_query(user_id=user_id, limit=limit, cursor=cursor))


def health() -> Operation[models.Health]:
    return Operation("GET", "/health", models.Health, also_ok=frozenset({503}))
