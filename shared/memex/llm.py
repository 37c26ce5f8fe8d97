"""JSON over an OpenAI-compatible chat endpoint: ask, retry what is worth retrying, parse leniently.

Servers differ in what they support, so nothing beyond plain chat messages is relied upon: the
prompt asks for JSON (no `response_format`, no `temperature`, which some models refuse), and the
answer is parsed leniently: code fences, prose around the JSON, `<think>` blocks and a truncated
array or object (its complete items are kept) are all accepted.

Server errors (5xx, 429), timeouts, dropped connections and answers with no JSON in them are
retried with exponential backoff, or after the server's `Retry-After` when it asks for longer (not
at all when that is past the time left or an attempt's timeout); a model's refusal is not (asked
again, it declines alike). The client's own retries are off so that there is one retry policy,
this one. After the last attempt, or at once on a client error (4xx) or a refusal, `LLMError`.
What a failure logs and raises names its kind (an exception type, a status code and the server's
own error message), never the endpoint's URL or the model's answer, which quotes the user.

A job can bound the time all its calls take together (`time_budget`): a worker's function has
a timeout, and a fallback (the rules judge) is only reachable if the LLM gives up before it. An
invocation's budget (memex_edge/deadline.py) bounds the OpenAI-compatible embedder's calls as well.
"""

from __future__ import annotations

import json
import logging
import re
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Iterator

from memex.config import Settings
from memex.metrics import LLM_CALLS, LLM_FAILURES, NoMetrics
from memex.outcome import LastOutcome

if TYPE_CHECKING:
    import openai

    from memex.ports import Metrics

log = logging.getLogger(__name__)


class LLMError(RuntimeError):
    """The chat endpoint gave no usable answer. `as_asked`: it refused the request as it is (HTTP
    400, 413, 422: a prompt past the model's context; or the model declined it, `message.refusal` or
    a content filter), and asking it again is refused alike.
    `unavailable`: the endpoint itself failed on the last attempt (a timeout, a dropped connection,
    5xx, 429), not the model's answer, so the next call soon is likely to wait and fail alike."""

    def __init__(self, message: str, as_asked: bool = False, unavailable: bool = False):
        super().__init__(message)
        self.as_asked = as_asked
        self.unavailable = unavailable


# A refusal of the request itself, not of the caller (401, 403) or of the model's name (404), which
# an operator may mend before the next try.
_REFUSED_AS_ASKED = frozenset({400, 413, 422})


# A context variable, not a thread's: an HTTP request's route runs in a worker thread of its own,
# which is handed the request's context (and so the invocation's budget).
_deadline: ContextVar[float | None] = ContextVar("memex_llm_deadline", default=None)


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Every chat call made in this block, in this context (the tasks it starts, the threads they
    hand work to), ends by `seconds` from now."""
    outer = _deadline.get()
    deadline = time.monotonic() + seconds
    token = _deadline.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    """Seconds left of the budget this context's calls share (None: unbounded); the
    OpenAI-compatible embedder's calls read it too."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def spent() -> bool:
    """Whether this context's budget is used up: no call may start, and a job that can go on later
    (consolidation) stops rather than doing without the LLM."""
    left = time_left()
    return left is not None and left <= 0


def attempt_timeout(timeout: float) -> float | None:
    """An attempt's timeout within the budget (`timeout` when unbounded); None when it is spent, and
    no attempt should start. The chat client's and the OpenAI-compatible embedder's retries share it."""
    left = time_left()
    if left is None:
        return timeout
    return min(timeout, left) if left > 0 else None


def may_wait(pause: float) -> bool:
    """Whether a retry's `pause` still leaves some of the budget for the attempt after it."""
    left = time_left()
    return left is None or left > pause


class ChatJSON:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *,
                 timeout: float = 30.0, attempts: int = 3, backoff: float = 0.5,
                 metrics: Metrics | None = None, purpose: str = "other"):
        """`purpose` labels this client's calls in `metrics` (LlmCalls, LlmFailures)."""
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.model = model
        self.outcome = LastOutcome(probe_blind=True)
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        self._metrics = metrics or NoMetrics()
        self.purpose = purpose
        # Imported here, not at the top: the client takes a large share of a cold start, and
        # without a configured LLM nothing needs it (pipeline.py imports this module for time_budget).
        from openai import OpenAI

        # A dummy key for endpoints without auth: the client would otherwise look for OPENAI_API_KEY.
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", timeout=timeout, max_retries=0)

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> "ChatJSON":
        return cls(settings.llm_model, settings.llm_base_url, settings.llm_api_key, **options)

    def ask(self, system: str, user: str, every: bool = False, read: Callable[[Any], Any] | None = None) -> Any:
        """The JSON value the model answers to `system` + `user` (an object or an array); with
        `every`, the list of each JSON value its answer holds (`parse_json_all`). `read`, given, turns
        that into what the caller uses, raising `LLMError` for an answer it cannot use, which counts
        as a failure (LlmFailures) as the endpoint's own do."""
        self._metrics.record(LLM_CALLS, purpose=self.purpose)
        try:
            answer = self._ask(system, user, every)
            return answer if read is None else read(answer)
        except LLMError:
            self._metrics.record(LLM_FAILURES, purpose=self.purpose)
            raise

    def _ask(self, system: str, user: str, every: bool) -> Any:
        import openai

        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        problem = ""
        # The endpoint's own failure, as its client raised it: what /health names the outage by,
        # as its probe and the embedder's calls do (None when the endpoint answered unusably).
        failure: BaseException | None = None
        for attempt in range(1, self.attempts + 1):
            content = None
            asked_to_wait = 0.0  # the server's Retry-After, in seconds
            timeout = attempt_timeout(self.timeout)
            if timeout is None:
                error = LLMError(f"{self.model}: the job's time budget for LLM calls is spent"
                                 + (f"; last: {problem}" if problem else ""), unavailable=failure is not None)
                if problem:  # spent waiting on the endpoint, not on other work
                    self.outcome.record(failure or error)
                raise error
            try:
                response = self._client.chat.completions.create(
                    model=self.model, messages=messages, timeout=timeout)
                choice = response.choices[0] if response.choices else None
                content = choice.message.content if choice else None
                filtered = content is None and choice is not None and choice.finish_reason == "content_filter"
                if choice and (choice.message.refusal or filtered):
                    # The model declines this prompt: asked again, it declines alike. Its words are not
                    # logged, as they may quote the user.
                    self.outcome.record()
                    log.warning("LLM refused to answer (%s)", "content_filter" if filtered else "a refusal")
                    raise LLMError(f"{self.model} refused to answer", as_asked=True)
                answer = (parse_json_all if every else parse_json)(content or "")
                self.outcome.record()
                return answer
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                problem, failure = type(exc).__name__, exc
            except openai.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code != 429:
                    self.outcome.record(exc)
                    raise LLMError(f"{self.model} refused the request: HTTP {exc.status_code} {_error_message(exc)}",
                                   as_asked=exc.status_code in _REFUSED_AS_ASKED) from exc
                problem, failure = f"HTTP {exc.status_code} {_error_message(exc)}", exc
                asked_to_wait = _retry_after(exc)
            except ValueError:
                problem, failure = "unparseable answer" if content else "empty answer", None
            if attempt < self.attempts:
                delay = max(self.backoff * 2 ** (attempt - 1), asked_to_wait)
                if not may_wait(delay) or asked_to_wait > self.timeout:
                    # The server would not answer in time (its Retry-After is past the budget or past
                    # an attempt's timeout): a call now is one more refusal; the caller's fallback or
                    # the queue's next delivery comes sooner.
                    if asked_to_wait:
                        log.warning("LLM attempt %d/%d failed (%s); the server asks to wait %.0fs, past the time "
                                    "left: no retry", attempt, self.attempts, problem, asked_to_wait)
                    break
                log.warning("LLM attempt %d/%d failed (%s); retrying in %.2fs", attempt, self.attempts, problem, delay)
                time.sleep(delay)
        error = LLMError(f"{self.model}: no usable answer after {attempt} attempts; last: {problem}",
                         unavailable=failure is not None)
        self.outcome.record(failure or error)
        raise error


def _retry_after(exc: openai.APIStatusError) -> float:
    """The seconds a 429's or 503's `Retry-After` header asks the client to wait (0: none, or a date,
    which local model servers do not send)."""
    try:
        return max(0.0, float(exc.response.headers.get("retry-after", "")))
    except ValueError:
        return 0.0


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:300]
    return str(exc.message)[:300]


# ---- lenient parsing (pure) -------------------------------------------------------------------

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
# What a fence may be labelled and hold JSON: a block of another language (```python) is an example.
_JSON_LABELS = frozenset({"", "json", "jsonc", "json5", "javascript", "js"})
_OPENERS = "{["
_CLOSERS = {"{": "}", "[": "]"}
_MAX_STARTS = 20
_MAX_CUTS = 200


def parse_json(text: str) -> Any:
    """The answer in `text`: its first JSON object, or its first array when it holds no object (a
    bracket of the prose before it, "[2] changes", is no answer). Accepts code fences, prose before
    and after, reasoning in <think> tags, and a truncated document, of which the complete items are
    kept. Raises ValueError when there is nothing to recover."""
    documents = parse_json_all(text)
    return next((d for d in documents if isinstance(d, dict)), documents[0])


def parse_json_all(text: str) -> list[Any]:
    """Every JSON object or array in `text`, in order (a small model may answer `{"memories": []}` and
    then the real one). With code fences, each JSON block is read on its own, so that a malformed one
    hides none after it; without, a document cut short or broken ends the list: what follows it is not
    told apart from its inside. Raises ValueError when there is nothing to recover."""
    text = _THINK.sub("", text or "").strip()
    found: list[Any] = []
    for label, block in _FENCE.findall(text):
        if label.lower() in _JSON_LABELS and any(c in block for c in _OPENERS):
            try:
                found += _documents(block)
            except ValueError:
                continue  # this block holds nothing to recover: the others may
    return found or list(_documents(text))


def _documents(text: str) -> Iterator[Any]:
    decoder = json.JSONDecoder()
    found = False
    start, failed = _next_opener(text, 0), 0
    while start >= 0 and failed < _MAX_STARTS:
        try:
            value, end = decoder.raw_decode(text, start)
            found = True
            yield value
            start = _next_opener(text, end)
            continue
        except json.JSONDecodeError:
            failed += 1
        cuts, truncated = _scan(text[start:])
        recovered = _close_at_last_complete_item(text[start:], cuts)
        if recovered is not None:
            yield recovered
            return
        if truncated:
            if found:
                return
            # JSON that runs to the end of the text: the brackets inside it are not fresh starts.
            raise ValueError(f"truncated JSON with no complete item: {text[start:start + 200]!r}")
        start = _next_opener(text, start + 1)
    if not found:
        raise ValueError(f"no JSON object or array in: {text[:200]!r}")


def _next_opener(text: str, at: int) -> int:
    """Where the next `{` or `[` from `at` is (-1: none)."""
    return min((i for i in (text.find("{", at), text.find("[", at)) if i >= 0), default=-1)


def _close_at_last_complete_item(text: str, cuts: list[tuple[int, list[str]]]) -> Any | None:
    """A JSON document cut off part-way (`[{"a": 1}, {"b": `) closed after its last complete item
    (`[{"a": 1}]`); None when no complete item precedes the cut.

    An array keeps only its complete items: an object cut short inside an array is dropped whole,
    since a missing member ("historical": true) could change what the rest means. An object that
    is not an array item (the top-level answer) keeps its complete members."""
    for end, open_stack in reversed(cuts[-_MAX_CUTS:]):
        if "[" in open_stack and "{" in open_stack[open_stack.index("[") :]:
            continue  # this cut would leave an array item half-written
        candidate = text[:end].rstrip().rstrip(",") + "".join(_CLOSERS[c] for c in reversed(open_stack))
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    return None


def _scan(text: str) -> tuple[list[tuple[int, list[str]]], bool]:
    """Where the text can be cut with only complete items before it: before each separating comma
    and after each closing bracket, with the containers still open at that point; and whether
    the text ends inside an open container (truncated) rather than closing or breaking off."""
    cuts: list[tuple[int, list[str]]] = []
    stack: list[str] = []
    in_string = escaped = False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in _OPENERS:
            stack.append(c)
        elif c in "}]":
            if not stack or _CLOSERS[stack[-1]] != c:
                return cuts, False  # not JSON any more
            stack.pop()
            if not stack:
                return cuts, False  # a complete document (that did not parse)
            cuts.append((i + 1, list(stack)))
        elif c == "," and stack:
            cuts.append((i, list(stack)))
    return cuts, bool(stack)
