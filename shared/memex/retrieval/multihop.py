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
from typing import Callable, Sequence

from memex import filler
from memex.config import Settings
from memex.llm import ChatJSON, LLMError
from memex.ports import Metrics

log = logging.getLogger(__name__)

SUBQUERY_WEIGHT = 1.0  # a sub-query is a part of the question: it counts as much as the question
ENTITY_WEIGHT = 0.2  # a name's keyword ranking, against 1.0 for the question's (measured: bench/locomo.py)
FIRST_HITS = 3
MAX_NAMES = 3
MAX_SUBQUERIES = 3

# The LLM's split of a question: (settings, question) -> sub-queries, or None when it failed.
Split = Callable[[Settings, str], "list[str] | None"]


def expansions(settings: Settings, question: str, first_hits: Callable[[], Sequence[str]],
               splitter: Split, decisive: Callable[[], bool] = lambda: False) -> list[tuple[float, str, bool]]:
    """(weight, query, keyword channel only?) of each extra query for `question`, for search.py
    to run together; `first_hits` gives the contents of the question's best hits (asked only
    offline); `splitter` asks the LLM (`split`, or search.py's wrapper that asks once per request);
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
        return [(ENTITY_WEIGHT, name, True) for name in entity_names(first_hits(), question)]
    return []


# ---- with an LLM ------------------------------------------------------------------------------

SPLIT_PROMPT = """You prepare search queries over a user's memories.
If answering the question needs several separate facts, rewrite it as 1 to 3 short, self-contained
search queries, one per fact (resolve pronouns; a later query may name what an earlier one finds
only if the question names it). If one fact answers it, return the question unchanged as the only
query. Answer with JSON only: {"queries": ["..."]}"""

_CHATS: dict[tuple[str, str, str, int], ChatJSON] = {}


def split(settings: Settings, question: str, metrics: Metrics | None = None) -> list[str] | None:
    """The sub-queries of `question` other than the question itself ([] when it needs no split);
    None when the LLM gave no usable answer (logged). Its calls count in `metrics` as `split`."""
    key = (settings.llm_model, settings.llm_base_url, settings.llm_api_key, id(metrics))
    if key not in _CHATS:
        # search is interactive: a short timeout and one retry, not the pipeline's patience
        _CHATS[key] = ChatJSON.from_settings(settings, timeout=10.0, attempts=2, backoff=0.2,
                                             metrics=metrics, purpose="split")
    try:
        answer = _CHATS[key].ask(SPLIT_PROMPT, question)
    except LLMError as exc:
        log.warning("query split failed (%s); expanding offline", type(exc).__name__)
        return None
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
# Capitalised words that are not names: sentence openers, days, months.
_COMMON = frozenset("""
a about absolutely after again all also always an and anyway are as at awesome be because before
but by can congrats congratulations cool could definitely did do does don even ever every for from
glad good got great guess had has have he hello her here hey hi his how i if im in is it its just last
let lets like lol love maybe me my nice no not now of oh ok okay on once one or our really right
see she should so some sounds still sure thank thanks that thats the their them then there these
they this those to today tomorrow totally very was we well were what when where which while who
why will wish with wow would yeah yes yesterday you your
monday tuesday wednesday thursday friday saturday sunday january february march april may june
july august september october november december
""".split())


def entity_names(hits: Sequence[str], question: str) -> list[str]:
    """The names `hits` mention that `question` does not, in order of appearance, at most MAX_NAMES.

    A name is a capitalised word that is not a common sentence opener, a day or a month (so
    "Biscuit and I love..." yields Biscuit). The "Name: " prefix of an episodic memory is skipped:
    it says who spoke, not what the memory is about, and a participant's name matches half the
    conversation."""
    asked = {w.lower() for w in _WORD.findall(question)}
    names: list[str] = []
    for text in hits:
        body = _SPEAKER.sub("", text, count=1)
        if filler.is_filler(body):
            continue  # "Got it!" names nothing
        for name in _NAME.findall(body):
            word = name.lower().replace("’", "").replace("'", "")
            if word in _COMMON or name.lower() in asked or word in asked or name in names:
                continue
            names.append(name)
            if len(names) == MAX_NAMES:
                return names
    return names
