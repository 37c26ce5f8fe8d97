"""`MemexClient` and `AsyncMemexClient`: the v1 API as methods, one per operation.

Both read the API key from MEMEX_API_KEY and the service's address from MEMEX_BASE_URL unless
given, send each request again on the failures retries.py names, and raise errors.py's errors.
"""

from __future__ import annotations

import asyncio
import os
import time
from datetime import datetime
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Optional, Sequence, Union

import httpx

from memex_client import models
from memex_client import operations as ops
from memex_client.errors import APIConnectionError, APITimeoutError, InvalidInputError
from memex_client.operations import MessageLike, Operation, T
from memex_client.retries import RetryPolicy

__version__ = "0.1.0"

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 30.0
DEFAULT_PAGE_SIZE = 100
FiltersLike = Union[models.SearchFilters, dict[str, Any]]


def _http_options(base_url: Optional[str], api_key: Optional[str],
                  timeout: Union[float, httpx.Timeout]) -> dict[str, Any]:
    key = api_key if api_key is not None else os.environ.get("MEMEX_API_KEY")
    headers = {"user-agent": f"memex-client/{__version__}"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    address = (base_url or os.environ.get("MEMEX_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    if not address.startswith(("http://", "https://")):
        # Else every request fails as a connection error, retried, that never says why.
        source = "base_url" if base_url else "MEMEX_BASE_URL"
        raise ValueError(f"{source} {address!r} is not an http:// or https:// address (e.g. {DEFAULT_BASE_URL})")
    return {"base_url": address, "headers": headers, "timeout": timeout}


_TIMEOUT_PHASES = ((httpx.ConnectTimeout, "connect"), (httpx.ReadTimeout, "read"), (httpx.WriteTimeout, "write"),
                   (httpx.PoolTimeout, "pool"))


def _gave_up(error: httpx.TransportError, base_url: str, timeout: httpx.Timeout) -> APIConnectionError:
    # The address: a client pointed at the default, or at a typo, is told where it looked.
    kind = APITimeoutError if isinstance(error, httpx.TimeoutException) else APIConnectionError
    detail = str(error)
    # httpx's text of a timeout is "timed out", or nothing at all from the async client ("ReadTimeout: "):
    # the limit that ran out says what happened.
    phase = next((name for cls, name in _TIMEOUT_PHASES if isinstance(error, cls)), None)
    if phase is not None and getattr(timeout, phase) is not None:
        detail = f"{phase} timed out after {getattr(timeout, phase):g} s"
    return kind(f"no answer from {base_url.rstrip('/')} ({type(error).__name__}: {detail})")


def _every(page_at: Callable[[Optional[str]], Any], items: Callable[[Any], Sequence[T]]) -> Iterator[T]:
    """The items of every page of a listing, the next page fetched with the last one's next_cursor."""
    cursor = None
    while True:
        try:
            page = page_at(cursor)
        except InvalidInputError as error:
            raise _as_page_size(error) from None
        yield from items(page)
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


async def _every_async(page_at: Callable[[Optional[str]], Awaitable[Any]],
                       items: Callable[[Any], Sequence[T]]) -> AsyncIterator[T]:
    """`_every` for the async client."""
    cursor = None
    while True:
        try:
            page = await page_at(cursor)
        except InvalidInputError as error:
            raise _as_page_size(error) from None
        for item in items(page):
            yield item
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def _as_page_size(error: InvalidInputError) -> InvalidInputError:
    """A listing's refusal of its `limit`, which the iterators send as their `page_size`, naming what the
    caller wrote; any other refusal as it came."""
    if error.field != "limit":
        return error
    said = error.message.partition(": ")[2] or error.message
    return InvalidInputError(error.status, error.code, f"page_size: {said}", field="page_size",
                             retry_after=error.retry_after, body=error.body)


def _finished(turn: models.TurnResult) -> bool:
    return turn.status in ("processed", "failed")


class MemexClient:
    """A client of the memex v1 API over one pooled connection; close it, or use it in `with`.

    `api_key`: else MEMEX_API_KEY (none: no Authorization header, for a service without keys).
    `base_url`: else MEMEX_BASE_URL, else http://127.0.0.1:8080. `timeout`: seconds per request.
    `max_retries`: attempts after the first; a `retry_policy`, when given, sets them and the waits.
    """

    def __init__(self, api_key: Optional[str] = None, base_url: Optional[str] = None, *,
                 timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT, max_retries: int = 3,
                 retry_policy: Optional[RetryPolicy] = None):
        self._http = httpx.Client(**_http_options(base_url, api_key, timeout))
        self._retries = retry_policy or RetryPolicy(max_retries=max_retries)

    @property
    def base_url(self) -> str:
        return str(self._http.base_url)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "MemexClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _send(self, op: Operation[T]) -> T:
        attempt = 0
        while True:
            try:
                response = self._http.request(op.method, op.path, **op.sent())
            except httpx.TransportError as error:
                delay = self._retries.after_error(attempt, error, op.replay_safe)
                if delay is None:
                    raise _gave_up(error, self.base_url, self._http.timeout) from error
            else:
                delay = None if op.is_answer(response) else self._retries.after_response(attempt, response,
                                                                                         op.replay_safe)
                if delay is None:
                    return op.read(response)
            time.sleep(delay)
            attempt += 1

    def add_turn(self, user_id: str, session_id: str, messages: Iterable[MessageLike], *, wait: bool = False,
                 agent_id: Optional[str] = None, timestamp: Optional[datetime] = None,
                 metadata: Optional[dict[str, Any]] = None, idempotency_key: Optional[str] = None,
                 user_name: Optional[str] = None) -> models.TurnResult:
        """Send a conversation turn. Queued (status "queued") unless `wait`, which processes it
        first and answers its memories (a turn over the service's MEMEX_INLINE_MAX_CHARS, or whose
        processing failed, is queued all the same: status "queued", its `error` saying why). Without an `idempotency_key` the client makes one, so a
        retry never stores the turn twice. `user_name`: which messages' `name` is the user; facts
        other named speakers state become theirs."""
        return self._send(ops.add_turn(user_id, session_id, messages, wait=wait, agent_id=agent_id,
                                       timestamp=timestamp, metadata=metadata, idempotency_key=idempotency_key,
                                       user_name=user_name))

    def get_turn(self, turn_id: str) -> models.TurnResult:
        return self._send(ops.get_turn(turn_id))

    def wait_for_turn(self, turn_id: str, *, timeout: float = 60.0, interval: float = 0.5) -> models.TurnResult:
        """Poll a queued turn until it is processed or failed; TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            turn = self.get_turn(turn_id)
            if _finished(turn):
                return turn
            if time.monotonic() >= deadline:
                raise TimeoutError(f"turn {turn_id} still {turn.status} after {timeout}s")
            time.sleep(interval)

    def add_memory(self, user_id: str, content: str, *, agent_id: Optional[str] = None,
                   session_id: Optional[str] = None, memory_type: Optional[models.MemoryType] = None,
                   importance: Optional[float] = None, metadata: Optional[dict[str, Any]] = None) -> models.Memory:
        """Store one memory as given, without extraction."""
        return self._send(ops.add_memory(user_id, content, agent_id=agent_id, session_id=session_id,
                                         memory_type=memory_type, importance=importance, metadata=metadata))

    def search(self, user_id: str, query: str, *, agent_id: Optional[str] = None, top_k: Optional[int] = None,
               alpha: Optional[float] = None, half_life_days: Optional[float] = None,
               reference_time: Optional[datetime] = None, as_of: Optional[datetime] = None,
               filters: Optional[FiltersLike] = None,
               include_inactive: Optional[bool] = None,
               mode: Optional[models.SearchMode] = None) -> models.SearchResponse:
        return self._send(ops.search(user_id, query, agent_id=agent_id, top_k=top_k, alpha=alpha,
                                     half_life_days=half_life_days, reference_time=reference_time, as_of=as_of,
                                     filters=filters, include_inactive=include_inactive, mode=mode))

    def recall(self, user_id: str, query: str, *, session_id: Optional[str] = None,
               agent_id: Optional[str] = None, max_tokens: Optional[int] = None,
               reference_time: Optional[datetime] = None, as_of: Optional[datetime] = None,
               require_relevant: Optional[bool] = None) -> models.RecallResponse:
        """Context for a prompt within `max_tokens`, every bullet cited; with `require_relevant`,
        nothing when no memory matches the query."""
        return self._send(ops.recall(user_id, query, session_id=session_id, agent_id=agent_id,
                                     max_tokens=max_tokens, reference_time=reference_time, as_of=as_of,
                                     require_relevant=require_relevant))

    def list_memories_page(self, user_id: str, *, include_inactive: bool = False, agent_id: Optional[str] = None,
                           limit: Optional[int] = None, cursor: Optional[str] = None,
                           order: Optional[str] = None) -> models.MemoryPage:
        return self._send(ops.list_page(user_id, include_inactive=include_inactive, agent_id=agent_id, limit=limit,
                                        cursor=cursor, order=order))

    def list_memories(self, user_id: str, *, include_inactive: bool = False, agent_id: Optional[str] = None,
                      page_size: int = DEFAULT_PAGE_SIZE, order: Optional[str] = None) -> Iterator[models.Memory]:
        """Every memory of the user (with `agent_id`, only that agent's), the latest written first
        (with `order="valid_from"`, the earliest valid_from first), fetching a page of `page_size` at
        a time."""
        return _every(lambda cursor: self.list_memories_page(user_id, include_inactive=include_inactive,
                                                             agent_id=agent_id, limit=page_size, cursor=cursor,
                                                             order=order),
                      lambda page: page.memories)

    def list_sessions_page(self, user_id: str, *, agent_id: Optional[str] = None, limit: Optional[int] = None,
                           cursor: Optional[str] = None) -> models.SessionPage:
        return self._send(ops.sessions_page(user_id, agent_id=agent_id, limit=limit, cursor=cursor))

    def list_sessions(self, user_id: str, *, agent_id: Optional[str] = None,
                      page_size: int = DEFAULT_PAGE_SIZE) -> Iterator[models.Session]:
        """Every session of the user (with `agent_id`, those that agent sent a turn in), the latest
        begun first, a page at a time."""
        return _every(lambda cursor: self.list_sessions_page(user_id, agent_id=agent_id, limit=page_size,
                                                             cursor=cursor),
                      lambda page: page.sessions)

    def list_turns_page(self, user_id: str, *, agent_id: Optional[str] = None, session_id: Optional[str] = None,
                        limit: Optional[int] = None, cursor: Optional[str] = None) -> models.TurnPage:
        return self._send(ops.turns_page(user_id, agent_id=agent_id, session_id=session_id, limit=limit,
                                         cursor=cursor))

    def list_turns(self, user_id: str, *, agent_id: Optional[str] = None, session_id: Optional[str] = None,
                   page_size: int = DEFAULT_PAGE_SIZE) -> Iterator[models.UserTurn]:
        """Every turn of the user as it was sent (with `agent_id` or `session_id`, that agent's or
        session's), the earliest said first, a page at a time."""
        return _every(lambda cursor: self.list_turns_page(user_id, agent_id=agent_id, session_id=session_id,
                                                          limit=page_size, cursor=cursor),
                      lambda page: page.turns)

    def session_messages_page(self, session_id: str, *, user_id: str, limit: Optional[int] = None,
                              cursor: Optional[str] = None) -> models.SessionMessagePage:
        return self._send(ops.session_messages_page(session_id, user_id, limit=limit, cursor=cursor))

    def session_messages(self, session_id: str, *, user_id: str,
                         page_size: int = DEFAULT_PAGE_SIZE) -> Iterator[models.SessionMessage]:
        """Every message of the user's session in the order it was said, a page at a time."""
        return _every(lambda cursor: self.session_messages_page(session_id, user_id=user_id, limit=page_size,
                                                                cursor=cursor),
                      lambda page: page.messages)

    def get_memory(self, memory_id: str) -> models.Memory:
        return self._send(ops.get_memory(memory_id))

    def memory_history(self, memory_id: str) -> models.MemoryHistory:
        """The memory's supersession chain, oldest first."""
        return self._send(ops.memory_history(memory_id))

    def count_memories(self, user_id: str, *, agent_id: Optional[str] = None, include_inactive: bool = False) -> int:
        """How many current memories the user has; with `include_inactive`, old values too (as
        `list_memories(include_inactive=True)` lists them)."""
        return self._send(ops.count_memories(user_id, agent_id, include_inactive)).count

    def delete_memory(self, memory_id: str) -> models.Erasure:
        """Erase the memory and its past (every value it replaced), never what replaced it."""
        return self._send(ops.delete_memory(memory_id))

    def delete_session(self, session_id: str, *, user_id: str) -> models.Erasure:
        """Erase the user's session: its turns, messages and every memory drawn from them."""
        return self._send(ops.delete_session(session_id, user_id))

    def delete_user(self, user_id: str) -> models.Erasure:
        """Forget the user: every turn, message and memory held about them."""
        return self._send(ops.delete_user(user_id))

    def get_backfill(self, backfill_id: str) -> models.Backfill:
        """The progress of a bulk import, re-embedding or re-extraction."""
        return self._send(ops.get_backfill(backfill_id))

    def list_backfills_page(self, *, user_id: Optional[str] = None, limit: Optional[int] = None,
                            cursor: Optional[str] = None) -> models.BackfillPage:
        return self._send(ops.backfills_page(user_id, limit=limit, cursor=cursor))

    def list_backfills(self, *, user_id: Optional[str] = None,
                       page_size: int = DEFAULT_PAGE_SIZE) -> Iterator[models.Backfill]:
        """Every backfill of the tenant (with `user_id`, only that user's), the newest first, a page
        at a time."""
        return _every(lambda cursor: self.list_backfills_page(user_id=user_id, limit=page_size, cursor=cursor),
                      lambda page: page.backfills)

    def health(self) -> models.Health:
        """The service's dependency report; answered, not raised, when it is degraded (503)."""
        return self._send(ops.health())


class AsyncMemexClient:
    """`MemexClient` for asyncio: the same arguments and methods, awaited."""

    def __init__(self, api_key: Optional[str] = None, base_url: Optional[str] = None, *,
                 timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT, max_retries: int = 3,
                 retry_policy: Optional[RetryPolicy] = None):
        self._http = httpx.AsyncClient(**_http_options(base_url, api_key, timeout))
        self._retries = retry_policy or RetryPolicy(max_retries=max_retries)

    @property
    def base_url(self) -> str:
        return str(self._http.base_url)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncMemexClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _send(self, op: Operation[T]) -> T:
        attempt = 0
        while True:
            try:
                response = await self._http.request(op.method, op.path, **op.sent())
            except httpx.TransportError as error:
                delay = self._retries.after_error(attempt, error, op.replay_safe)
                if delay is None:
                    raise _gave_up(error, self.base_url, self._http.timeout) from error
            else:
                delay = None if op.is_answer(response) else self._retries.after_response(attempt, response,
                                                                                         op.replay_safe)
                if delay is None:
                    return op.read(response)
            await asyncio.sleep(delay)
            attempt += 1

    async def add_turn(self, user_id: str, session_id: str, messages: Iterable[MessageLike], *,
                       wait: bool = False, agent_id: Optional[str] = None, timestamp: Optional[datetime] = None,
                       metadata: Optional[dict[str, Any]] = None, idempotency_key: Optional[str] = None,
                       user_name: Optional[str] = None) -> models.TurnResult:
        return await self._send(ops.add_turn(user_id, session_id, messages, wait=wait, agent_id=agent_id,
                                             timestamp=timestamp, metadata=metadata,
                                             idempotency_key=idempotency_key, user_name=user_name))

    async def get_turn(self, turn_id: str) -> models.TurnResult:
        return await self._send(ops.get_turn(turn_id))

    async def wait_for_turn(self, turn_id: str, *, timeout: float = 60.0,
                            interval: float = 0.5) -> models.TurnResult:
        deadline = time.monotonic() + timeout
        while True:
            turn = await self.get_turn(turn_id)
            if _finished(turn):
                return turn
            if time.monotonic() >= deadline:
                raise TimeoutError(f"turn {turn_id} still {turn.status} after {timeout}s")
            await asyncio.sleep(interval)

    async def add_memory(self, user_id: str, content: str, *, agent_id: Optional[str] = None,
                         session_id: Optional[str] = None, memory_type: Optional[models.MemoryType] = None,
                         importance: Optional[float] = None,
                         metadata: Optional[dict[str, Any]] = None) -> models.Memory:
        return await self._send(ops.add_memory(user_id, content, agent_id=agent_id, session_id=session_id,
                                               memory_type=memory_type, importance=importance, metadata=metadata))

    async def search(self, user_id: str, query: str, *, agent_id: Optional[str] = None,
                     top_k: Optional[int] = None, alpha: Optional[float] = None,
                     half_life_days: Optional[float] = None, reference_time: Optional[datetime] = None,
                     as_of: Optional[datetime] = None, filters: Optional[FiltersLike] = None,
                     include_inactive: Optional[bool] = None,
                     mode: Optional[models.SearchMode] = None) -> models.SearchResponse:
        return await self._send(ops.search(user_id, query, agent_id=agent_id, top_k=top_k, alpha=alpha,
                                           half_life_days=half_life_days, reference_time=reference_time, as_of=as_of,
                                           filters=filters, include_inactive=include_inactive, mode=mode))

    async def recall(self, user_id: str, query: str, *, session_id: Optional[str] = None,
                     agent_id: Optional[str] = None, max_tokens: Optional[int] = None,
                     reference_time: Optional[datetime] = None, as_of: Optional[datetime] = None,
                     require_relevant: Optional[bool] = None) -> models.RecallResponse:
        return await self._send(ops.recall(user_id, query, session_id=session_id, agent_id=agent_id,
                                           max_tokens=max_tokens, reference_time=reference_time, as_of=as_of,
                                           require_relevant=require_relevant))

    async def list_memories_page(self, user_id: str, *, include_inactive: bool = False,
                                 agent_id: Optional[str] = None, limit: Optional[int] = None,
                                 cursor: Optional[str] = None, order: Optional[str] = None) -> models.MemoryPage:
        return await self._send(ops.list_page(user_id, include_inactive=include_inactive, agent_id=agent_id,
                                              limit=limit, cursor=cursor, order=order))

    def list_memories(self, user_id: str, *, include_inactive: bool = False, agent_id: Optional[str] = None,
                      page_size: int = DEFAULT_PAGE_SIZE, order: Optional[str] = None) -> AsyncIterator[models.Memory]:
        return _every_async(lambda cursor: self.list_memories_page(user_id, include_inactive=include_inactive,
                                                                   agent_id=agent_id, limit=page_size,
                                                                   cursor=cursor, order=order),
                            lambda page: page.memories)

    async def list_sessions_page(self, user_id: str, *, agent_id: Optional[str] = None,
                                 limit: Optional[int] = None, cursor: Optional[str] = None) -> models.SessionPage:
        return await self._send(ops.sessions_page(user_id, agent_id=agent_id, limit=limit, cursor=cursor))

    def list_sessions(self, user_id: str, *, agent_id: Optional[str] = None,
                      page_size: int = DEFAULT_PAGE_SIZE) -> AsyncIterator[models.Session]:
        return _every_async(lambda cursor: self.list_sessions_page(user_id, agent_id=agent_id, limit=page_size,
                                                                   cursor=cursor),
                            lambda page: page.sessions)

    async def list_turns_page(self, user_id: str, *, agent_id: Optional[str] = None,
                              session_id: Optional[str] = None, limit: Optional[int] = None,
                              cursor: Optional[str] = None) -> models.TurnPage:
        return await self._send(ops.turns_page(user_id, agent_id=agent_id, session_id=session_id, limit=limit,
                                               cursor=cursor))

    def list_turns(self, user_id: str, *, agent_id: Optional[str] = None, session_id: Optional[str] = None,
                   page_size: int = DEFAULT_PAGE_SIZE) -> AsyncIterator[models.UserTurn]:
        return _every_async(lambda cursor: self.list_turns_page(user_id, agent_id=agent_id, session_id=session_id,
                                                                limit=page_size, cursor=cursor),
                            lambda page: page.turns)

    async def session_messages_page(self, session_id: str, *, user_id: str, limit: Optional[int] = None,
                                    cursor: Optional[str] = None) -> models.SessionMessagePage:
        return await self._send(ops.session_messages_page(session_id, user_id, limit=limit, cursor=cursor))

    def session_messages(self, session_id: str, *, user_id: str,
                         page_size: int = DEFAULT_PAGE_SIZE) -> AsyncIterator[models.SessionMessage]:
        return _every_async(lambda cursor: self.session_messages_page(session_id, user_id=user_id,
                                                                      limit=page_size, cursor=cursor),
                            lambda page: page.messages)

    async def get_memory(self, memory_id: str) -> models.Memory:
        return await self._send(ops.get_memory(memory_id))

    async def memory_history(self, memory_id: str) -> models.MemoryHistory:
        return await self._send(ops.memory_history(memory_id))

    async def count_memories(self, user_id: str, *, agent_id: Optional[str] = None,
                             include_inactive: bool = False) -> int:
        return (await self._send(ops.count_memories(user_id, agent_id, include_inactive))).count

    async def delete_memory(self, memory_id: str) -> models.Erasure:
        return await self._send(ops.delete_memory(memory_id))

    async def delete_session(self, session_id: str, *, user_id: str) -> models.Erasure:
        return await self._send(ops.delete_session(session_id, user_id))

    async def delete_user(self, user_id: str) -> models.Erasure:
        return await self._send(ops.delete_user(user_id))

    async def get_backfill(self, backfill_id: str) -> models.Backfill:
        return await self._send(ops.get_backfill(backfill_id))

    async def list_backfills_page(self, *, user_id: Optional[str] = None, limit: Optional[int] = None,
                                  cursor: Optional[str] = None) -> models.BackfillPage:
        return await self._send(ops.backfills_page(user_id, limit=limit, cursor=cursor))

    def list_backfills(self, *, user_id: Optional[str] = None,
                       page_size: int = DEFAULT_PAGE_SIZE) -> AsyncIterator[models.Backfill]:
        return _every_async(lambda cursor: self.list_backfills_page(user_id=user_id, limit=page_size,
                                                                    cursor=cursor),
                            lambda page: page.backfills)

    async def health(self) -> models.Health:
        return await self._send(ops.health())
