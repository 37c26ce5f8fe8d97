"""Multi-hop expansion: extra queries for a question whose answer needs two facts.

"Where do I walk my dog?" finds "My dog is called Biscuit." but not "Biscuit and I love our walks
in Lisbon.", which shares no word with the question. Two ways to reach the second fact, each
giving extra queries whose rankings search.py fuses (weighted RRF) with the question's own:

- with an LLM (settings.llm_multihop and an LLM configured): the LLM splits the question into 1-3
  self-contained sub-queries; a question that needs no split comes back as itself and adds nothing.
  Each sub-query runs on both channels.
- offline (settings.offline_expansion): entity expansion. The names the question's first hits
  mention and the question does not (capitalised words, see `entity_names`) each get one keyword
  search, fused with a small weight so that a single-hop question keeps its order.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from memex import filler, literal
from memex.config import Settings
from memex.llm import ChatJSON, LLMError, time_budget
from memex.ports import Metrics
from memex.time_phrases import MONTHS, WEEKDAYS

log = logging.getLogger(__name__)

SUBQUERY_WEIGHT = 1.0  # a sub-query is a part of the question: it counts as much as the question
ENTITY_WEIGHT = 0.2  # a name's keyword ranking, against 1.0 for the question's (measured: bench/locomo.py)
FIRST_HITS = 3
MAX_NAMES = 3
MAX_SUBQUERIES = 3
# What a search waits for the split, its retry included: one attempt's timeout. A hung model cost
# each search both attempts' (20 s); a 500 still gets its quick retry.
SPLIT_BUDGET_SECONDS = 10.0
# After the endpoint failed a split (a timeout, a dropped connection, 5xx, 429), this process's searches
# skip the split for this long, doubling while it keeps failing up to the most, reset by a success: a
# down model would otherwise cost every search its wait, with nothing to show for it.
SPLIT_BACKOFF_SECONDS = 10.0
SPLIT_BACKOFF_MOST_SECONDS = 160.0

# The LLM's split of a question: (settings, question) -> sub-queries, or None when it failed.
Split = Callable[[Settings, str], "list[str] | None"]


def expansions(settings: Settings, question: str, ranked: Callable[[], Sequence[str]],
               splitter: Split, decisive: Callable[[], bool] = lambda: False) -> list[tuple[float, str, bool]]:
    """(weight, query, keyword channel only?) of each extra query for `question`, for search.py
    to run together; `ranked` gives the contents of the question's ranking, best first (asked
    only offline); `splitter` asks the LLM (`split`, or search.py's wrapper that asks once per request);
    `decisive` says whether the question's own channels already agree on its answer, which spares
    the offline expansion when settings.search_expansion_skip_decisive."""
    if settings.llm_multihop and settings.llm_configured:
        subqueries = splitter(settings, question)
        if subqueries is not None:
            return [(SUBQUERY_WEIGHT, q, False) for q in subqueries]
        # the LLM failed: fall through to the offline expansion
    if settings.offline_expansion:
        if settings.search_expansion_skip_decisive and decisive():
            return []
        return [(ENTITY_WEIGHT, name, True) for name in entity_names(ranked(), question)]
    return []


# ---- with an LLM ------------------------------------------------------------------------------

SPLIT_PROMPT = """You prepare search queries over a user's memories.
If answering the question needs several separate facts, rewrite it as 1 to 3 short, self-contained
search queries, one per fact (resolve pronouns; a later query may name what an earlier one finds
only if the question names it). If one fact answers it, return the question unchanged as the only
query. Answer with JSON only: {"queries": ["..."]}"""

@dataclass
class _Splitter:
    chat: ChatJSON
    skip_until: float = 0.0  # time.monotonic() before which the split is not asked
    backoff: float = 0.0  # the last back-off, 0 after a success
    lock: threading.Lock = field(default_factory=threading.Lock)

    def may_ask(self) -> bool:
        """Whether this search may ask: not within a back-off, and, once it is over, only the first
        search to come (the others skip while it finds out whether the endpoint is back)."""
        with self.lock:
            now = time.monotonic()
            if now < self.skip_until:
                return False
            if self.backoff:
                self.skip_until = now + SPLIT_BUDGET_SECONDS
            return True

    def succeeded(self) -> None:
        with self.lock:
            self.skip_until, self.backoff = 0.0, 0.0

    def failed(self) -> float:
        """Starts (or doubles) the back-off; its seconds."""
        with self.lock:
            self.backoff = min(SPLIT_BACKOFF_MOST_SECONDS, self.backoff * 2 or SPLIT_BACKOFF_SECONDS)
            self.skip_until = time.monotonic() + self.backoff
            return self.backoff


_SPLITTERS: dict[tuple[str, str, str, int], _Splitter] = {}


def split_state(settings: Settings) -> str:
    """The query split's state in this process, for /health: "ok", or while its searches skip the split
    after the endpoint failed it, the failure and the back-off left ("error: APITimeoutError, back-off
    40s left"), whatever the extraction's calls and the models list meet meanwhile."""
    now = time.monotonic()
    backing_off = []
    for key, splitter in list(_SPLITTERS.items()):
        if key[:3] == (settings.llm_model, settings.llm_base_url, settings.llm_api_key):
            with splitter.lock:
                if splitter.backoff:
                    backing_off.append((splitter.skip_until, splitter.chat.outcome.state))
    if not backing_off:
        return "ok"
    skip_until, state = max(backing_off)
    return f"{state}, back-off {max(0.0, skip_until - now):.0f}s left"


def split(settings: Settings, question: str, metrics: Metrics | None = None) -> list[str] | None:
    """The sub-queries of `question` other than the question itself ([] when it needs no split);
    None when the LLM gave no usable answer (logged), or failed lately (SPLIT_BACKOFF_SECONDS). Its
    calls count in `metrics` as `split`."""
    key = (settings.llm_model, settings.llm_base_url, settings.llm_api_key, id(metrics))
    if key not in _SPLITTERS:
        # search is interactive: a short timeout and one retry, not the pipeline's patience
        _SPLITTERS[key] = _Splitter(ChatJSON.from_settings(settings, timeout=SPLIT_BUDGET_SECONDS, attempts=2, backoff=0.2,
                                                           metrics=metrics, purpose="split"))
    splitter = _SPLITTERS[key]
    if not splitter.may_ask():
        return None
    try:
        with time_budget(SPLIT_BUDGET_SECONDS):
            answer = splitter.chat.ask(SPLIT_PROMPT, question)
    except LLMError as exc:
        if exc.unavailable:
            log.warning("query split failed (%s); expanding offline, and not asking again for %.0fs",
                        type(exc).__name__, splitter.failed())
        else:
            splitter.succeeded()  # the endpoint answered: nothing to wait for
            log.warning("query split failed (%s); expanding offline", type(exc).__name__)
        return None
    splitter.succeeded()
    queries = answer.get("queries") if isinstance(answer, dict) else answer
    if not isinstance(queries, list):
        log.warning("query split answered no list of queries (a %s)", type(answer).__name__)
        return None
    seen = {_normal(question)}
    out = []
    for query in queries:
        if isinstance(query, str) and query.strip() and _normal(query) not in seen:
            seen.add(_normal(query))
            out.append(query.strip())
    return out[:MAX_SUBQUERIES]


def _normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# ---- offline ----------------------------------------------------------------------------------

_SPEAKER = re.compile(r"^\s*[^:\n]{1,40}:\s")
_NAME = re.compile(r"\b[A-Z][A-Za-z]+(?:['’-][A-Za-z]+)*\b")
_WORD = re.compile(r"[A-Za-z]+")


def _key(word: str) -> str:
    return word.lower().replace("’", "").replace("'", "")


# Words that are never names, however written: the filler vocabulary (function words and
# pleasantries), and the days, months and openers it lacks. Other openers ("Recently",
# "Seeing") are told from names by how the question's ranking writes them (`entity_names`).
_NOT_NAMES = frozenset(_key(word) for word in filler.WORDS) | frozenset("""
after again always anyway because before even ever every guess last lets like maybe now once
one some still today tomorrow when where which while who why wish yesterday
""".split()) | frozenset(WEEKDAYS) | frozenset(MONTHS)


def _opens_sentence(text: str, start: int) -> bool:
    # a line break ends a sentence: a memory's last line need not end with a full stop
    before = start - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    return before < 0 or not (text[before].isalnum() or text[before] == ",")


def _at(word: str, text: str) -> Iterator[int]:
    """Where `text` has `word` as a whole word (str.find: a regex with \\b scans ~20x slower)."""
    for start in literal.places(text, word):
        end = start + len(word)
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            yield start


def _ordinary(name: str, text: str) -> bool:
    """Whether `text` writes `name` lower-case somewhere and never capitalised inside a sentence."""
    if any(not _opens_sentence(text, at) for at in _at(name, text)):
        return False
    return next(_at(name.lower(), text), None) is not None


def entity_names(ranked: Sequence[str], question: str) -> list[str]:
    """The names the first FIRST_HITS of `ranked` (the contents of the question's ranking, best
    first) mention and `question` does not, in order of appearance, at most MAX_NAMES.

    A name is a capitalised word outside _NOT_NAMES. One that opens a sentence is a name only if
    `ranked` never writes it lower-case, or also writes it capitalised inside a sentence: a
    sentence's first word is capitalised whatever it is, so "Recently I moved" says nothing, and
    "I moved recently" elsewhere shows an ordinary word; "Biscuit and I love our walks" yields
    Biscuit, as does "Pepper and I..." beside "my dog Pepper" (even with "salt and pepper").
    The "Name: " prefix of an episodic memory is skipped: it says who spoke, not what the memory
    is about, and a participant's name matches half the conversation."""
    asked = {w.lower() for w in _WORD.findall(question)}
    everything: str | None = None  # joined only when a sentence's first word needs it
    names: list[str] = []
    for text in ranked[:FIRST_HITS]:
        body = _SPEAKER.sub("", text, count=1)
        if filler.is_filler(body):
            continue  # "Got it!" names nothing
        for match in _NAME.finditer(body):
            name = match.group()
            word = _key(name)
            if word in _NOT_NAMES or name.lower() in asked or word in asked or name in names:
                continue
            if _opens_sentence(body, match.start()):
                # a "Name: " prefix opens its line, so it counts neither way
                everything = everything if everything is not None else "\n".join(ranked).replace("’", "'")
                if _ordinary(name.replace("’", "'"), everything):
                    continue
            names.append(name)
            if len(names) == MAX_NAMES:
                return names
    return names
