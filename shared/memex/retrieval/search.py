"""Hybrid search: keyword and vector channels over one user's memories, fused and scored.

In hybrid mode a question that names the user by their own name, when the user has no other
participant, is first made the question about "the user" (speakers.as_the_user,
settings.search_user_names), and is embedded as asked, with the name, beside it. Then the search runs in three steps: the question's own channels (its
keyword channel again without the participants it names, speakers.py, when it names one; with
settings.search_first_person, its vector channel in the user's voice when it asks about "the user", or
about "she" or "he" and names no participant, first_person.py; with settings.search_topics, the
facts of a kind of fact it names, which pass the floor, topics.py); extra queries for a
question that needs two facts (multihop.py), whose rankings join the same weighted RRF; then,
when one is configured, a reranker over the best fused candidates (rerank.py), whose floor then
replaces the built-in one (floor.py). Without a reranker, the question's cues then adjust the
fused relevance (`_cues`, each behind a setting: the speaker it names, the period it names, "now", the
lines said next to the best hits), and a learned linear model re-orders the best 50 (learned.py).
The facts of the kinds the question names then go in their kinds' order (topics.ordered), and the
fact that introduces someone the question asks about, by name or by their place in the user's life
("my spouse"), below what is known of them (named.py;
a question about a stranger keeps only what its words found). Last,
the current facts are ranked above the messages they made stale (current_first.py), or, for a
question about the past, the facts that were replaced above what led to them (past.py); and the
member of a supersession chain that answers a question about the chain ("before Shopify", "her first
job", "when did she move to Dublin?") goes first (chains.py). Every
result, in every mode, says which values of its message have since been replaced or ended
(`no_longer_current`, stale.py), read in current-first's round trip; no rank or score depends on it.
With settings.search_keyword_first, the question's keyword
channel runs first and its vector channel only when the keyword one is not decisive
(keyword_first.py): a decisive question is never embedded. The bm25 and vector modes run their one channel alone, for
comparison: no expansion, no cues, no reranking.

Degraded, not down: when the embedder fails or times out, the keyword channel answers alone (in
every mode); when the reranker fails, the fused ranking stands with the built-in floor; when the
LLM cannot split the question, the offline expansion stands in. The answer names what was missing
in `degraded` ([] when nothing was).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Collection, Hashable, Sequence

import numpy as np

from memex import emoji, episodic, filler, first_person, standalone, time_phrases, user_zone
from memex.config import Settings
from memex.context import Context
from memex.db import history
from memex.db import memories as memory_rows
from memex.embeddings import query_cache
from memex.extraction.plain import plain
from memex.metrics import FLOOR_REJECTIONS, LLM_FALLBACKS
from memex.models import SearchIn, wire_time
from memex.retrieval import (answer_type, chains, confirmed, current_first, floor, in_common, keyword_first,
                             keywords, kinds, learned, multihop, named, past, period, repeats, replies, rerank, rrf,
                             scoring, speakers, stale, temporal, topics, whose)

CANDIDATES_PER_CHANNEL = 100
EXPANSION_CANDIDATES = 30  # per extra query: its lower ranks would add next to nothing
KEYWORD_WEIGHT = 1.0
VECTOR_WEIGHT = 0.5  # see rrf.py for how both were measured
# The facts of the kinds a question names (topics.py): a lexical tie, as the keyword channel's is.
TOPIC_WEIGHT = KEYWORD_WEIGHT
TOPIC_FACTS = 10
# The most participants' names read before the first round (memories.ahead, one index
# probe each); a user with more has the question's unnamed form embedded in the second round.
NAMES_AHEAD = 64
# The names of a search's queries in a round (_search's run): the question's as asked, in the user's voice
# (first_person.py), with the user's name (speakers.as_the_user), without the participants' (speakers.
# without_names); an extra query (multihop.py) is named by its number.
QUESTION, VOICED, BY_NAME, UNNAMED = "question", "voiced", "by name", "unnamed"

log = logging.getLogger(__name__)

_ITERATIVE_SCAN: dict[str, bool] = {}


def _iterative_scan(ctx: Context) -> bool:
    """Whether this database's pgvector can filter during the HNSW walk; asked once per server."""
    dsn = ctx.db.dsn
    if dsn not in _ITERATIVE_SCAN:
        _ITERATIVE_SCAN[dsn] = memory_rows.pgvector_supports_iterative_scan(ctx.db.connection())
    return _ITERATIVE_SCAN[dsn]


@dataclass
class QueryRun:
    """One query's channels, best first; None for a channel that did not run. `topic`: the facts of
    the kinds the question names (topics.py), for the question's own run only."""

    keyword: memory_rows.Ranking | None
    vector: memory_rows.Ranking | None
    topic: memory_rows.Ranking | None = None
    _signals: dict[str, floor.Signals] | None = field(default=None, init=False, repr=False, compare=False)

    def rankings(self, weight: float) -> list[tuple[float, list[str]]]:
        # a question naming no kind the user has facts of is fused as it was without the topic channel
        topic = self.topic if self.topic is not None and self.topic.ranked else None
        return [(weight * channel_weight, [item for item, _ in channel.ranked]) for channel_weight, channel
                in ((KEYWORD_WEIGHT, self.keyword), (VECTOR_WEIGHT, self.vector), (TOPIC_WEIGHT, topic))
                if channel is not None]

    def scores(self, channel: str) -> dict[str, float]:
        ranking = getattr(self, channel)
        return dict(ranking.ranked) if ranking is not None else {}

    def signals(self) -> dict[str, floor.Signals]:
        """Read once: the question's are asked for by the gate and again by the item floor."""
        if self._signals is None:
            self._signals = floor.signals(self.keyword, self.vector)
        return self._signals

    def topical(self) -> set[str]:
        return {item for item, _ in self.topic.ranked} if self.topic else set()

    def found(self) -> dict[str, memory_rows.Found]:
        return {**(self.topic.found if self.topic else {}), **(self.vector.found if self.vector else {}),
                **(self.keyword.found if self.keyword else {})}

    def memories(self) -> dict[str, str]:
        return {**(self.topic.memories if self.topic else {}), **(self.vector.memories if self.vector else {}),
                **(self.keyword.memories if self.keyword else {})}


class Dependencies:
    """What one request asks of the embedder, the LLM and the reranker. Each query is embedded and
    split at most once, and a dependency that failed is not asked again within the request (recall
    runs several searches), so one that is down costs the request a single wait; `degraded` names it."""

    def __init__(self, ctx: Context, tenant_id: str):
        self._ctx = ctx
        self._tenant_id = tenant_id
        # The request's now, read with the check that its user is not being erased (user_zone.send_now,
        # read_now): its searches take it as their reference time without a round trip of their own.
        self.now: datetime | None = None
        # What the request's searches learn of its user before their first round (memories.Ahead), when
        # read with its now (read_now): one round trip for both.
        self.ahead: memory_rows.Ahead | None = None
        self._vectors: dict[str, np.ndarray] = {}
        self._splits: dict[str, list[str]] = {}
        self._failed: set[str] = set()

    @property
    def degraded(self) -> list[str]:
        return sorted(self._failed)

    def query_vectors(self, queries: Sequence[str]) -> list[np.ndarray | None]:
        """The queries' vectors, those not embedded yet in one call (the fixed cost of a call is
        most of a short query's on the local embedder); all None when the embedder is unusable."""
        if "embed" in self._failed:
            return [None] * len(queries)
        missing = list(dict.fromkeys(query for query in queries if query not in self._vectors))
        if missing:
            try:
                with query_cache.asked_by(self._tenant_id):
                    self._vectors.update(zip(missing, self._ctx.embedder.embed_queries(missing)))
            except Exception as exc:  # noqa: BLE001 - whatever broke, the keyword channel still answers
                log.warning("embedder unusable (%s); keyword channel only", type(exc).__name__)
                self._failed.add("embed")
                return [None] * len(queries)
        return [self._vectors[query] for query in queries]

    def split(self, settings: Settings, question: str) -> list[str] | None:
        """The LLM's sub-queries of `question`; None when the LLM is unusable (multihop logs why)."""
        if "llm" in self._failed:
            return None
        if question not in self._splits:
            subqueries = multihop.split(settings, question, self._ctx.metrics)
            if subqueries is None:
                self._ctx.metrics.record(LLM_FALLBACKS, purpose="split")  # the offline expansion stands in
                self._failed.add("llm")
                return None
            self._splits[question] = subqueries
        return self._splits[question]

    def rerank(self, reranker: rerank.Reranker, query: str, documents: Sequence[str]) -> list[float] | None:
        """The reranker's scores; None when it is unusable (it logs why)."""
        if "rerank" in self._failed:
            return None
        scores = reranker.scores(query, documents)
        if scores is None:
            self._failed.add("rerank")
        return scores


def search(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies | None = None) -> dict[str, Any]:
    """`deps` carries what a caller running several searches for one request already learned. A
    question that asks only what was said in a period is answered with that period's messages
    (period.py); a question about the past is searched without its cue, which decides what comes
    back (past.py). A question about what two people have in common is searched without the words
    that say so (in_common.py). A question with no word and no emoji ("?", "...": standalone.wordless)
    is answered with nothing, in every mode; an emoji is a word to search ("🍣": memex.emoji). The
    words of its texts are read once (speakers.remembered). Every reader sees the question as the
    offline rules see a statement (extraction/plain.py): "Where’s she working now?" typed on a phone
    is "Where's she working now?"; the answer's `query` is the question as sent."""
    asked = request.query
    request = request.model_copy(update={"query": plain(asked)})
    deps = deps or Dependencies(ctx, tenant_id)
    if deps.now is None:
        read_now(ctx, tenant_id, request, deps)
    request = request.model_copy(update={"reference_time": deps.now})
    if standalone.wordless(request.query) and not emoji.holds(request.query):
        # "?" asks about nothing, yet its vector is as near "Huh?" as a question to its answer: no mode answers it
        return {**_answer(request, [], 0, deps), "query": asked}
    if request.as_of is not None:
        # Memory as it stood then: every statement's scope holds what was valid at `as_of`, current
        # now or not (db/validity.py), and the keyword channel's statistics are over all memories.
        request = request.model_copy(update={"filters": request.filters.held_at(request.as_of),
                                             "include_inactive": True})
    if request.mode == "hybrid" and ctx.settings.search_in_common and in_common.asks(request.query):
        request = request.model_copy(update={"query": in_common.without_cue(request.query)})
    if request.mode == "hybrid" and ctx.settings.search_periods:
        periods = period.asked(request.query, request.reference_time)
        if periods:
            return {**_said_within(ctx, tenant_id, request, deps, periods), "query": asked}
    with speakers.remembered():
        if not (request.mode == "hybrid" and ctx.settings.search_past and past.asks(request.query)):
            answer = _search(ctx, tenant_id, request, deps, past_question=None)
        else:
            answer = _search(ctx, tenant_id, request.model_copy(update={"query": past.topic(request.query)}), deps,
                             past_question=request.query)
    return {**answer, "query": asked}  # as asked, whatever it was searched as


def read_now(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies) -> None:
    """The request's now into `deps` (user_zone.send_now: the check that its user is not being erased, and
    without a reference time their zone, whose days "yesterday" names) and, when its search reads it
    (_reads_ahead), the user's Ahead with it: one round trip for both, where there were two. The check
    is read first: nothing read of a user being erased is looked at. A question about a period
    (_said_within) reads no Ahead, and the one read with its now is not used: a probe per name of
    the user's, not a round trip."""
    conn = ctx.db.connection()
    with conn.pipeline():
        now = user_zone.send_now(conn, tenant_id, request.user_id, request.reference_time)
        ahead = memory_rows.send_ahead(conn, tenant_id, request.user_id, NAMES_AHEAD, _id_as_name(request)) \
            if _reads_ahead(ctx.settings, request, deps) else None
    deps.now = now()
    deps.ahead = ahead() if ahead else None


def _unnamed_searched_on(settings: Settings, request: SearchIn) -> bool:
    """Whether the question without the participants it names is searched on the keyword channel."""
    return request.mode == "hybrid" and bool(settings.search_keywords_without_speakers and settings.search_speaker_boost)


def _unnamed_embedded_on(settings: Settings, request: SearchIn) -> bool:
    """Whether the question without the participants it names is embedded too."""
    return _unnamed_searched_on(settings, request) and settings.search_unnamed_vector_weight > 0


def _unnamed_ahead_on(settings: Settings, request: SearchIn) -> bool:
    """Whether the question without the participants it names is embedded in the first round (_unnamed_ahead)."""
    return _unnamed_embedded_on(settings, request) and not settings.search_keyword_first


def _user_names_on(settings: Settings, request: SearchIn) -> bool:
    """Whether a question naming the user by their own name is made the question about "the user"."""
    return request.mode == "hybrid" and settings.search_user_names and not settings.search_keyword_first


def _reads_ahead(settings: Settings, request: SearchIn, deps: Dependencies) -> bool:
    """Whether a search reads its user's Ahead before its first round (memories.ahead)."""
    return "embed" not in deps.degraded and (
        _unnamed_ahead_on(settings, request) or _user_names_on(settings, request)
        or request.mode == "hybrid" and settings.search_first_person and first_person.says_she_or_he(request.query))


def _id_as_name(request: SearchIn) -> list[str]:
    """The user's id, as a name the caller knows them by, when it reads as one (named.a_name)."""
    return [request.user_id] if named.a_name(request.user_id) else []


def _said_within(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies,
                 periods: list[time_phrases.Window]) -> dict[str, Any]:
    """The messages said in the periods the question asks about, each as relevant as the others
    (the period is all it asks), recency and importance scored as for any memory; `said_within` in
    its score parts names the period that holds it. A line said again goes below the distinct ones
    (repeats.py), as in any search: when the newest `top_k` hold one, the next as many again are read
    (a round trip each) until `top_k` distinct lines are, the period's messages end, or
    settings.search_period_reads have been read. `total` is how many messages the period holds."""
    now = request.reference_time
    conn = ctx.db.connection()
    memories: dict[str, dict[str, Any]] = {}
    found: dict[str, memory_rows.Found] = {}
    entries: list[repeats.Scored] = []  # with their own scores, in the order read
    limit = request.top_k
    most = max(request.top_k, ctx.settings.search_period_reads)
    total = 0
    while True:
        page, said_then = memory_rows.said_within(conn, tenant_id, request.user_id, request.agent_id,
                                                  request.filters, request.include_inactive, periods, limit,
                                                  offset=len(memories))
        if said_then is not None:  # counted by the first page's statement
            total = said_then
        for memory in page:
            said = datetime.fromisoformat(memory["valid_from"])
            parts = scoring.score(1.0, said, memory["importance"], now, request.alpha, request.half_life_days)
            start, end = next((start, end) for start, end in periods if start <= said < end)
            memories[memory["id"]] = memory
            found[memory["id"]] = memory_rows.Found(said, memory["importance"], memory["content"],
                                                    memory_type=memory["memory_type"])
            entries.append((memory["id"], round(parts.score, 6), {
                **parts.as_dict(), "bm25": None, "similarity": None, "rerank": None, "learned": None,
                "said_within": f"{wire_time(start)}/{wire_time(end)}"}))
        scored = sorted(entries, key=lambda entry: entry[1], reverse=True)
        if not ctx.settings.search_repeats_below:
            break
        scored = repeats.after_distinct(scored, found, now.tzinfo)
        if len(page) < limit or sum("repeat_of" not in parts for _, _, parts in scored) >= request.top_k \
                or len(memories) >= most:
            break
        limit = min(len(memories), most - len(memories))
    results = [{**memories[item], "score": score, "score_parts": parts}
               for item, score, parts in scored[:request.top_k]]
    return _answer(request, _marked(conn, tenant_id, request, results), total, deps)


def _search(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies | None,
            past_question: str | None) -> dict[str, Any]:
    """`past_question`: the question as asked when `request` is its topic (a question about the past)."""
    about_past = past_question is not None
    conn = ctx.db.connection()
    deps = deps or Dependencies(ctx, tenant_id)
    scope = (tenant_id, request.user_id, request.agent_id, request.filters, request.include_inactive)
    walk_above = ctx.settings.vector_exact_max if _iterative_scan(ctx) else None

    def whole(depth: int) -> int:
        """How many of its best memories a query's channels read whole with their ranking: the
        question's top_k, as the results are usually among them. An extra query's none: they seldom
        are; those that are come in step 4's round trip."""
        return request.top_k if depth > EXPANSION_CANDIDATES else 0

    def keyword_query(query: str, depth: int) -> tuple[str, int, int, int]:
        # keyword candidates in proportion to the depth kept: an extra query keeps 30
        max_postings = ctx.settings.keyword_max_postings * min(depth, CANDIDATES_PER_CHANNEL) \
            // CANDIDATES_PER_CHANNEL
        return keywords.searched(query), depth, max_postings, whole(depth)

    def run(plans: dict[Hashable, tuple[str, int, bool, bool]], ahead: Sequence[str] = (),
            size: memory_rows.Size | None = None, topic: memory_rows.Statement | None = None
            ) -> dict[Hashable, QueryRun]:
        """Each plan, (query, depth, keyword?, vector?), on its channels, all in one pipeline: one round
        trip, in which Postgres ranks the keywords while the queries are being embedded; the runs under
        the plans' names. The queries' keyword channels go as one statement (memories.keyword_statements),
        their texts to the embedder in one call, with `ahead`: texts a later round will ask the vectors
        of, and the vectors of one depth as one statement where that saves a scan
        (memories.vector_statements). The user's `size`, when read ahead, leaves the vector statements
        only the path it calls for. `topic` (memories.topic_statement) goes with them, its ranking the
        QUESTION plan's."""
        keyword_plans = [name for name, (_, _, keyword, _) in plans.items() if keyword]
        vector_plans = [name for name, (_, _, _, vector) in plans.items() if vector]
        # the embedded plans of each depth, and the statement that ranks them all
        vector_groups: dict[int, list[Hashable]] = {}
        ranked_vectors: list[tuple[list[Hashable], Any]] = []
        fallbacks: dict[Hashable, memory_rows.Statement] = {}
        # No explicit transaction: what a pipeline sends before its sync runs in one implicit
        # transaction, which holds the vector statement's local settings; BEGIN and COMMIT
        # through psycopg cost round trips of their own (~10 ms under load at 1k memories).
        with conn.pipeline():
            if keyword_plans:
                ranked_keywords = memory_rows.keyword_statements(
                    *scope, [keyword_query(plans[i][0], plans[i][1]) for i in keyword_plans])
                ranked_keywords.send(conn)
            if topic is not None:
                topic.send(conn)
            vectors = deps.query_vectors([plans[name][0] for name in vector_plans] + list(ahead)) \
                if vector_plans else []
            embedded = dict(zip(vector_plans, vectors))
            for name, query_vector in embedded.items():
                query, depth, keyword, _ = plans[name]
                if query_vector is not None:
                    vector_groups.setdefault(depth, []).append(name)
                elif not keyword:  # the embedder failed: the keyword channel answers
                    fallbacks[name] = memory_rows.keyword_statements(*scope, [keyword_query(query, depth)])
                    fallbacks[name].send(conn)
            # A question embedded twice (in the user's voice and as asked) is ranked by one
            # statement: one scan of a large user's quantised vectors, not two.
            for depth, group in vector_groups.items():
                statement = memory_rows.vector_statements(
                    *scope, [embedded[name] for name in group], depth, walk_above,
                    min(1000, max(depth, ctx.settings.vector_ef_search)),
                    ctx.settings.vector_preselect, ctx.settings.vector_preselect_above,
                    min(1000, max(depth, ctx.settings.user_vector_index_ef_search)), size, whole(depth))
                statement.send(conn)
                ranked_vectors.append((group, statement))
        ranked = dict(zip(keyword_plans, ranked_keywords.results())) if keyword_plans else {}
        ranked.update({name: statement.result() for name, statement in fallbacks.items()})
        vector_ranked = {name: ranking for group, statement in ranked_vectors
                         for name, ranking in zip(group, statement.results())}
        return {name: QueryRun(ranked.get(name), vector_ranked.get(name),
                               topic.result() if topic is not None and name == QUESTION else None) for name in plans}

    depth = max(CANDIDATES_PER_CHANNEL, request.top_k * 2)
    voicing = request.mode == "hybrid" and ctx.settings.search_first_person
    # The question's other readings on the vector channel, fused beside it at
    # settings.search_as_asked_vector_weight: as searched, when voiced, and as asked, with the user's name.
    beside: list[QueryRun] = []
    unnamed_searched = _unnamed_searched_on(ctx.settings, request)
    unnamed_embedded = _unnamed_embedded_on(ctx.settings, request)
    # The names of the user's participants, read before the first round: the question without those
    # it names is embedded in it (keyword first: in the second), a "she" or "he" is the user only
    # when the question names none of them, and, when they are all the user, a question that names
    # the user by their own name is the question about "the user".
    unnamed_ahead = _unnamed_ahead_on(ctx.settings, request)
    user_names = _user_names_on(ctx.settings, request)
    # read with the request's now when search() read that (read_now), else here
    ahead = (deps.ahead or memory_rows.ahead(conn, tenant_id, request.user_id, NAMES_AHEAD, _id_as_name(request))) \
        if _reads_ahead(ctx.settings, request, deps) else None
    about_the_user = speakers.as_the_user(request.query, ahead.user_names, ahead.names) \
        if user_names and ahead and ahead.names is not None else None
    # Named, the question is embedded as asked too: "Melanie" alone, or "where does Melanie live?" of a
    # line that says "Melanie moved to Paris.", asks for the lines that name the user, which "the user"
    # misses. Not on the keyword channel: when the user's messages carry the name, every one says it
    # (as its speaker), and the name's matches would be all of them.
    by_name = request.query if about_the_user and ctx.settings.search_as_asked_vector_weight > 0 else None
    if about_the_user:
        request = request.model_copy(update={"query": about_the_user})
    # A question about "the user" (or "she") is embedded in the user's voice (first_person.py); as
    # asked, it runs beside that on the vector channel with its own weight.
    voiced = first_person.asked(request.query, pronouns=_names_nobody(request.query, ahead)) if voicing else None
    # A question about the past also asks, after the ranking, for the replaced facts near it as
    # searched and as asked (history.send_asked): embedded with the first round's texts.
    past_texts = []
    if about_past:
        past_voiced = first_person.asked(past_question, pronouns=_names_nobody(past_question, ahead)) \
            if voicing else None
        past_texts = [voiced or request.query, past_voiced or past_question]
    # The user's size, when read ahead: this search's vector statements then hold only the path
    # it calls for (memories.vector_statement), the next round's too, a few milliseconds later.
    size: memory_rows.Size | None = None
    # The kinds of fact the question names (topics.py), read once: for the topic channel of a present
    # question and for the keys it names to the history (past.key_words).
    kinds_named = topics.asked(request.query)
    asked_topic = kinds_named if request.mode == "hybrid" and ctx.settings.search_topics and not about_past else None
    if request.mode == "hybrid" and ctx.settings.search_keyword_first:
        # The keyword channel first, and the query embedded only when its answer is not decisive:
        # a round trip more for those, no embedding for the others.
        question = run({QUESTION: (request.query, depth, True, False)})[QUESTION]
        if not keyword_first.decisive(question.keyword):
            embedded_run = run({QUESTION: (voiced or request.query, depth, False, True)})[QUESTION]
            question = QueryRun(question.keyword, embedded_run.vector)
    else:
        embed_asked = request.mode in ("hybrid", "vector") and (
            not voiced or ctx.settings.search_as_asked_vector_weight > 0)
        size = ahead and ahead.size
        readings: dict[Hashable, tuple[str, int, bool, bool]] = {
            QUESTION: (request.query, depth, request.mode in ("hybrid", "bm25"), embed_asked)}
        if voiced:
            readings[VOICED] = (voiced, depth, False, True)
        if by_name:
            readings[BY_NAME] = (by_name, depth, False, True)
        read = run(readings, [*(_unnamed_ahead(request, ahead) if ahead and unnamed_ahead else ()), *past_texts],
                   size, memory_rows.topic_statement(*scope, asked_topic.keys, TOPIC_FACTS) if asked_topic else None)
        question = read[QUESTION]
        if voiced:
            if question.vector is not None:
                beside.append(QueryRun(None, question.vector))
            question = QueryRun(question.keyword, read[VOICED].vector, question.topic)
        if by_name and read[BY_NAME].vector is not None:
            beside.append(read[BY_NAME])
        question = QueryRun(question.keyword, question.vector,
                            _topical(request.query, asked_topic, question.topic, question.vector, question.keyword))
    # A question about someone the user never named is answered by what its words found, not by the
    # user's facts its frame is near (named.py): no kind, no ended news, no memory found by meaning alone.
    # The user's and the participants' names (None: not read)
    known = None if ahead is None or ahead.names is None else [*ahead.names, *ahead.user_names]
    stranger = request.mode == "hybrid" and ahead is not None and named.stranger(
        request.query, known, question.found().values())
    if stranger:
        question = QueryRun(question.keyword, question.vector)
    own = question.signals()
    reranker = rerank.from_settings(ctx.settings) if request.mode == "hybrid" else None
    # The facts of the kinds the question names answer it, whatever its words and meaning say (topics.py).
    topical = question.topical()
    # The question's other readings open the gate too: a fact embedded before facts were embedded in the
    # user's voice (embedded_text.py; until `memex backfill --reembed`) is near it as asked, not the voiced
    # one, and a line that names the user is found by the name.
    gate_open = bool(topical) or floor.query_passes(
        [*own.values(), *(s for reading in beside for s in reading.signals().values())],
        vector_ran=question.vector is not None)
    # the memories the question's own signals keep: a fact kept only by another's is held under its message
    # (learned.py)
    near = {item for item, s in own.items() if floor.item_passes(s)} | topical
    # A present question that names a key whose value ended with nothing after it is answered by that
    # news first (current_first.ended), read in step 4's round trip; not asked of a user who has no
    # such news at all (memories.Ahead.news, read ahead in this search).
    # The keys a present question names (past.key_words) also say which part of a stale message it
    # asks about (current_first.lift).
    keys_named = [] if about_past else past.key_words(request.query, kinds_named)
    ended_words = keys_named if ctx.settings.search_ended and not stranger and (ahead is None or ahead.news) else []

    def asked_vector() -> np.ndarray | None:
        """The question's vector as its vector channel ranked with it (embedded once: deps keeps it)."""
        return deps.query_vectors([voiced or request.query])[0] if question.vector is not None else None

    if not (gate_open or reranker):
        ctx.metrics.record(FLOOR_REJECTIONS)
        if ended_words:  # near nothing she said, "what does she do for a living?" still asks about a job that ended
            return _ended_alone(ctx, tenant_id, request, deps, ended_words, asked_vector())
        if not about_past:  # a question about the past may still ask about a replaced fact (past.asked)
            return _answer(request, [], 0, deps)  # a query about nothing the user said

    # 1. the question's channels, and those of its extra queries (multi-hop), in one weighted RRF
    runs = [(1.0, question)]
    found = question.found()
    for reading in beside:
        runs.append((ctx.settings.search_as_asked_vector_weight, reading))
        found = {**reading.found(), **found}
    if request.mode == "hybrid":
        fused_question = rrf.fuse(question.rankings(1.0))
        ordered = sorted(fused_question, key=fused_question.__getitem__, reverse=True)

        def ranked() -> list[str]:
            return [found[item].content for item in ordered]

        def decisive() -> bool:
            """Both channels put the same memory first: the question found its answer."""
            return bool(question.keyword and question.vector and question.keyword.ranked and question.vector.ranked
                        and question.keyword.ranked[0][0] == question.vector.ranked[0][0])

        extra = multihop.expansions(ctx.settings, request.query, ranked, deps.split, decisive)
        # the participants the question names: the speaker cue reads them, the keywords go without
        unnamed = speakers.without_names(request.query, (row.speaker for row in found.values())) \
            if unnamed_searched else None
        plans: dict[Hashable, tuple[str, int, bool, bool]] = {
            number: (query, EXPANSION_CANDIDATES, True, not keyword_only)
            for number, (_, query, keyword_only) in enumerate(extra)}
        if unnamed:
            plans[UNNAMED] = (unnamed, depth, True, unnamed_embedded)
        if plans:
            extra_runs = run(plans, size=size)
            if unnamed:
                unnamed_run = extra_runs[UNNAMED]
                question = QueryRun(unnamed_run.keyword, question.vector, question.topic)
                runs = [(1.0, question)] + runs[1:]
                if unnamed_run.vector is not None:
                    runs.append((ctx.settings.search_unnamed_vector_weight, QueryRun(None, unnamed_run.vector)))
            runs += [(weight, extra_runs[number]) for number, (weight, _, _) in enumerate(extra)]
            for _, query_run in runs:
                found = {**query_run.found(), **found}
    channels = [channel for weight, query_run in runs for channel in query_run.rankings(weight)]
    fused = rrf.fuse(channels)
    best_possible = rrf.best_possible([weight for weight, _ in channels])
    relevance = {item: score / best_possible for item, score in fused.items()}

    # 2. the reranker over the best fused candidates, or the built-in floor
    reranked = _rerank(reranker, deps, request.query, fused, found) if reranker else None
    if reranked is not None:
        relevance = {item: score for item, score in reranked.items() if score >= reranker.min_score}
        kept = list(relevance)
    else:
        # A memory found by an extra query is held to that query's signals, not the question's.
        signals = [query_run.signals() for _, query_run in runs]
        kept = [item for item in relevance
                if gate_open and (item in topical or any(item in s and floor.item_passes(s[item]) for s in signals))]
    # Neither filter below reads a score, so both hold for a reranker's answer too.
    # "Got it!", or "👍", is about as near in meaning to any short question as a real answer is: a
    # line that says nothing of its own is kept only when the question's words found it (a query's
    # keyword ranking holds it: read from the rankings, so a reranked search reads no extra query's signals)
    worded = {item for _, query_run in runs if query_run.keyword is not None for item, _ in query_run.keyword.ranked}
    kept = [item for item in kept if item in worded or not filler.is_filler(_said(found[item]))]
    # A question that says only what kind of question it is ("what?", "And then?", "Who am I?") is as near
    # a line that says nothing either ("Wait, what?" 0.93, "Huh?" 0.80), whose words no list of filler
    # holds: no message answers it by meaning; its kinds' facts (topics.py) and the facts near it do.
    # The user's name is a word of what it asks: "Melanie" searched as "The user" is no such question.
    if keywords.function_words_only(speakers.words(by_name or request.query)):
        kept = [item for item in kept if item in topical or found[item].memory_type != "episodic"]
    # "What is my wife's name?" is as near "I have a dog named Rex." as to the answer: a memory
    # about someone or something of another kind than the one whose name is asked is none (kinds.py)
    if ctx.settings.search_kinds and (asked_kinds := kinds.asked(request.query)):
        kept = [item for item in kept if kinds.answers(asked_kinds, found[item].content)]

    if stranger:
        kept = [item for item in kept if item in question.scores("keyword")]
    # "Where does my wife work?" is as near the user's own employer as the wife's, and as the dad's: the
    # user's own facts, and another relative's, answer no question about someone else in their life (whose.py)
    relatives = whose.asked_of(request.query, found.values(), known) \
        if request.mode == "hybrid" and ctx.settings.search_whose else frozenset()
    if relatives:
        kept = whose.not_theirs(kept, found, relatives)

    # 3. scoring: relevance blended with recency and importance, from what the rankings read
    now = request.reference_time
    if reranked is None and request.mode == "hybrid":
        relevance, kept = _cues(ctx.settings, request.query, now, relevance, kept, found,
                                lambda anchors, reach: _neighbours(conn, scope, anchors, reach, found))
    bm25, similarity = question.scores("keyword"), question.scores("vector")
    # A channel the mode asks for has its rank in every answer, None when it did not run (the
    # keyword-first answer, a failed embedder): the same fields whichever way the search went.
    ranks = {name: {item: rank for rank, (item, _) in enumerate(channel.ranked, start=1)} if channel else {}
             for name, channel, asked in (("bm25", question.keyword, request.mode in ("hybrid", "bm25")),
                                          ("vector", question.vector, request.mode in ("hybrid", "vector")))
             if asked}
    scored = []
    # each candidate's parts filled in one dict, in the order the wire shows them (~150 a LoCoMo search)
    rank_parts = [(f"{name}_rank", by_item) for name, by_item in ranks.items()]
    for item in kept:
        row = found[item]
        parts = scoring.score(relevance[item], row.valid_from, row.importance, now, request.alpha,
                              request.half_life_days)
        detail = parts.as_dict()
        detail["bm25"], detail["similarity"] = bm25.get(item), similarity.get(item)
        detail["rerank"] = reranked.get(item) if reranked is not None else None
        for key, by_item in rank_parts:
            detail[key] = by_item.get(item)
        if request.mode == "hybrid":  # a hybrid answer has the field whether the learned order ran or not
            detail["learned"] = None
        scored.append((item, detail["score"], detail))
    scored.sort(key=lambda entry: (-entry[1], memory_rows.message_last(found[entry[0]].memory_type)))
    # Fitted on the default blend with both channels' ranks: a request that sets its own alpha or
    # half-life, or a search whose vector channel did not run (keyword first, a failed embedder),
    # keeps the blend.
    if reranked is None and request.mode == "hybrid" and ctx.settings.search_learned \
            and request.alpha is None and request.half_life_days is None and question.vector is not None:
        scored = learned.reorder(request.query, now, scored, found,
                                 near if ctx.settings.search_fact_own_relevance else None,
                                 (asked_topic.words, topical) if topical else None)
    # 4. the memories themselves, for the results returned: read with the rankings, else fetched.
    # The first top_k not read yet are fetched in the round trip that reads current-first's
    # replacements: current-first mostly leaves them the results.
    # Those read with the rankings stay JSON text until returned (memory_rows.wire).
    unparsed = {item: memory for _, query_run in runs for item, memory in query_run.memories().items()}
    read: dict[str, dict[str, Any]] = {}
    # A line said again goes below the distinct ones (repeats.py), here already so that the window reads
    # those the results will hold; again last, after the lifts below have moved lines.
    if ctx.settings.search_repeats_below:
        scored = repeats.after_distinct(scored, found, now.tzinfo)
    # A question about the past reads, in the same round trip, the replaced facts its window leads to
    # instead, and those it asks about by itself, taken when none is led to (past.py).
    window = current_first.window(request, scored)
    asked = set(unparsed) | set(window)
    unread = [item for item in window if item not in unparsed]
    # Only a message has facts drawn from it (history.send_replacements), and only a user with a fact
    # no longer current has a stale one (memories.Ahead.replaced, read ahead in this search): a
    # window the rankings read whole that has neither needs no round trip here.
    replaced = ahead is None or ahead.replaced
    said = [item for item in window if _said_in_message(found.get(item))] if replaced else []
    replacements, drawn = list, []
    # A question about a chain ("before Shopify", "her first job", "when did she move to Dublin?") reads
    # the chain's facts in this round trip; its member that answers goes first, last of all (below).
    whole_question = past_question or request.query  # "before Shopify" is a past cue: the topic lacks it
    chain = chains.asked(whole_question) if request.mode == "hybrid" and ctx.settings.search_chains else None
    if about_past or ended_words or said or unread or chain is not None:
        with conn.pipeline():
            if chain is not None:
                chain_facts = history.send_chain_facts(conn, tenant_id, request.user_id,
                                                       chains.texts(whole_question, chain), list(chain.key_words),
                                                       request.as_of)
            # read for every question: a question about the past returns messages too (`no_longer_current`)
            if said:
                replacements = history.send_replacements(conn, tenant_id, request.user_id, said, request.as_of,
                                                         keys_named, asked_vector())
            if about_past:  # the question searched, and as asked: "did I use to date" is part of what it asks
                key_words = past.key_words(request.query, kinds_named)
                earlier = history.send_earlier(conn, tenant_id, request.user_id, window, request.top_k, key_words,
                                               request.as_of)
                by_itself = history.send_asked(conn, tenant_id, request.user_id, deps.query_vectors(past_texts),
                                               key_words, floor.DEFAULT.gate_similarity, request.top_k,
                                               request.as_of)
            elif ended_words:
                ended = history.send_ended(conn, tenant_id, request.user_id, asked_vector(), ended_words,
                                           request.top_k, request.as_of)
            fetched = memory_rows.send_get_many(conn, tenant_id, unread) if unread else dict
        drawn = replacements()
        if about_past:
            led, alone = past.of_keys_named(earlier(), by_itself())
            scored = past.asked(request, past.lift(request, scored, led, relevance, now), alone, now,
                                floor.DEFAULT.gate_similarity)
        else:
            scored = current_first.lift(request, scored, drawn, relevance, now,
                                        frozenset(question.keyword.terms) if question.keyword else frozenset())
            if ended_words:
                scored = current_first.ended(request, scored, ended(), relevance, now)
        read.update(fetched())
    # Of the facts of the kinds the question names, some answer before the others (the number of
    # children before a child's name) or right after the best of them (the job to come after the job);
    # last, so that a fact lifted as current ("I'm a nurse now at St Mary's." took back the lay-off:
    # the employer first) still answers in its kind's order (the title first for "What's her job?").
    if topical and asked_topic is not None and question.topic is not None:
        scored = topics.ordered(asked_topic, scored, {item: question.topic.found[item].key or "" for item in topical})
    if request.mode == "hybrid":
        scored = named.theirs_first(request.query, named.introduced_after(request.query, scored, found, relatives,
                                                                          topical), found,
                                    [] if ahead is None or ahead.names is None else
                                    [name for name in ahead.names if name not in ahead.user_names])
    # Last: the member of a chain that answers a question about the chain goes first whatever put the
    # others where they are.
    if chain is not None:
        scored = chains.first(request, scored, *chains.answer(whole_question, chain, chain_facts()), relevance, now)
    if ctx.settings.search_repeats_below:
        scored = repeats.after_distinct(scored, found, now.tzinfo)
    results: list[dict[str, Any]] = []
    total = len(scored)
    start = 0
    while len(results) < request.top_k and start < len(scored):
        block = scored[start:start + request.top_k - len(results)]
        start += len(block)
        missing = [item for item, _, _ in block if item not in asked]
        if missing:  # a current fact lifted from beyond the window, or the results past an erasure
            read.update(memory_rows.get_many(conn, tenant_id, missing))
            asked.update(missing)
        for item, score, parts in block:
            if item in unparsed:
                read[item] = memory_rows.wire(unparsed[item])
            if item not in read:
                total -= 1  # erased between the ranking and the fetch
                continue
            results.append({**read[item], "score": score, "score_parts": parts})
    return _answer(request, _marked(conn, tenant_id, request, results, stale.values(drawn),
                                    set(said), replaced), total, deps)


def _ended_alone(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies, words: list[str],
                 vector: np.ndarray | None) -> dict[str, Any]:
    """The answer to a present question that passed no gate: the messages that ended the value of a
    key it names (current_first.ended), or nothing; one round trip to learn which, one more to read
    them."""
    conn = ctx.db.connection()
    rows = history.send_ended(conn, tenant_id, request.user_id, vector, words, request.top_k, request.as_of)()
    scored = current_first.ended(request, [], rows, {}, request.reference_time)
    read = memory_rows.get_many(conn, tenant_id, [item for item, _, _ in scored]) if scored else {}
    results = [{**read[item], "score": score, "score_parts": parts} for item, score, parts in scored if item in read]
    return _answer(request, _marked(conn, tenant_id, request, results), len(results), deps)


def _topical(query: str, asked_topic: topics.Topic | None, topic_channel: memory_rows.Ranking | None,
             vector_channel: memory_rows.Ranking | None,
             keyword_channel: memory_rows.Ranking | None) -> memory_rows.Ranking | None:
    """The facts of the question's kinds (`asked_topic`; the topic channel read them) about whom it asks:
    the participants it names, else the user ("Does she have any pets?" is not answered by another
    participant's dog), and the memories the other channels found that tell of the kinds in words no
    fact was filed under ("My knee hurts after long runs." for "any injuries?": topics.tells). Those the
    vector channel ranked come first, nearest the question first ("dietary restrictions" asks about an
    allergy too, but about the diet first), then the others in their importance's order."""
    if topic_channel is None or asked_topic is None:
        return None
    found = dict(topic_channel.found)
    ranked = list(topic_channel.ranked)
    if asked_topic.told:
        for channel in (vector_channel, keyword_channel):
            for item, _ in channel.ranked if channel is not None else ():
                if item not in found and topics.tells(asked_topic, channel.found[item].content):
                    found[item] = channel.found[item]
                    ranked.append((item, 0.0))  # no place among the facts: the vector's order places it
    asked = speakers.words(query)
    named = {item for item, _ in ranked if speakers.names(asked, found[item])}
    mine = named or {item for item, _ in ranked if found[item].subject == "user"}
    near = dict(vector_channel.ranked) if vector_channel is not None else {}
    ranked = sorted(((item, score) for item, score in ranked if item in mine),
                    key=lambda entry: -near.get(entry[0], -2.0))  # stable: the importance's order after
    return memory_rows.Ranking(ranked, {item: found[item] for item in mine}, memories={
        item: text for item, text in topic_channel.memories.items() if item in mine})


def _unnamed_ahead(request: SearchIn, ahead: memory_rows.Ahead) -> list[str]:
    """The question without the participants it names, as the second round will search it, when
    the names of all the user's participants say what that will be: its vector then comes in the
    first round's call to the embedder, with the question's (one call where there were two). The
    second round reads the names from the memories found, as ever, and embeds its own text when
    that differs (a name none of the memories found was said by), so no answer changes."""
    unnamed = speakers.without_names(request.query, ahead.names) if ahead.names else None
    return [unnamed] if unnamed else []


def _names_nobody(query: str, ahead: memory_rows.Ahead | None) -> bool:
    """Whether `query` names none of the user's participants (unknown, when they were not read or
    are more than were: then it may)."""
    if ahead is None or ahead.names is None:
        return False
    asked = speakers.words(query)
    return not any(speakers.named(asked, name) for name in ahead.names)


def _cues(settings: Settings, query: str, now: datetime, relevance: dict[str, float], kept: list[str],
          found: dict[str, memory_rows.Found], neighbours_of) -> tuple[dict[str, float], list[str]]:
    """The fused relevance of the kept memories with the question's cues (config.py, search_*):
    a memory whose speaker the question names, or valid in a period it names, or that says a time
    counted from its day when the question asks when (answer_type.asks_time), counts for more
    (divided by the largest factor, so relevance stays within [0, 1]), and so does a later one when
    the question asks what holds now; then the messages said next to the best memories share their relevance,
    the reply to one that asks more (replies.py). `found` gains the neighbours' rows."""
    asked = speakers.words(query) if settings.search_speaker_boost else frozenset()
    periods = time_phrases.windows(query, now) if settings.search_temporal_boost else []
    named = {item for item in kept if speakers.names(asked, found[item])}
    speaker_factor = 1 + settings.search_speaker_boost if named else 1.0
    time_factor = 1 + settings.search_temporal_boost if periods else 1.0
    # a "When" question that names no period: the line that says a time counted from its day (answer_type.py)
    dated = {item for item in kept if time_phrases.counts_from_saying(_said(found[item]))} if (
        settings.search_when_boost > 0 and not periods and answer_type.asks_time(query)) else set()
    when_factor = 1 + settings.search_when_boost if dated else 1.0
    if speaker_factor > 1 or time_factor > 1 or when_factor > 1:
        top = speaker_factor * time_factor * when_factor
        relevance = {item: relevance[item]
                     * (speaker_factor if item in named else 1.0)
                     * (time_factor if time_phrases.within(found[item].valid_from, periods) else 1.0)
                     * (when_factor if item in dated else 1.0) / top
                     for item in kept}
    present = settings.search_present_boost if kept and temporal.asks_present(query) else 0.0
    if present > 0:
        moments = [found[item].valid_from for item in kept]
        oldest, span = min(moments), (max(moments) - min(moments)).total_seconds()
        if span > 0:
            # the newest of the kept memories x (1 + boost), the oldest x 1, in proportion between
            relevance = {item: relevance[item] * (1 + present * (found[item].valid_from - oldest).total_seconds()
                                                  / span) / (1 + present) for item in kept}
    if settings.search_neighbour_share <= 0 or not kept:
        return relevance, kept
    anchors = sorted(kept, key=lambda item: relevance[item], reverse=True)[:settings.search_neighbour_hits]
    own = relevance  # shares come from what a memory found itself, never from a share it received
    relevance = dict(relevance)
    kept = list(kept)
    # An anchor passed the floor: a line said next to it is kept on its strength (the floor reads
    # the question's signals, which a reply such as "Yes, last May!" does not carry).
    held = set(kept)
    for anchor, item, row, step in neighbours_of(anchors, settings.search_neighbour_reach):
        if filler.says_nothing(_said(row)):
            continue  # "Got it!", "👍" or "Nice to meet you, Maya!" says nothing the anchor did not
        said = _said(found[anchor])  # a reply more, and what a yes confirms
        shared = max(replies.share(settings, said, step), confirmed.share(settings, said, step)) * own[anchor]
        if item not in held:
            held.add(item)
            kept.append(item)
            found.setdefault(item, row)
        if shared > relevance.get(item, 0.0):
            relevance[item] = shared
    return relevance, kept


def _marked(conn, tenant_id: str, request: SearchIn, results: list[dict[str, Any]],
            known: dict[str, list[str]] | None = None, read: Collection[str] = (),
            replaced: bool = True) -> list[dict[str, Any]]:
    """`results` with `no_longer_current` on each (stale.py): the values of a message's facts that a
    later message replaced or ended; [] for one with none, and for a memory that is no message's.
    `known`: those of the messages `read` (current-first's window, in its round trip); the others
    returned cost one more, not made for a user none of whose facts has stopped being current
    (`replaced`: memories.Ahead.replaced). With the request's `as_of`, as they stood then."""
    rest = [result for result in results if result["id"] not in read and result["memory_type"] == "episodic"
            and any(source["message_id"] for source in result["sources"])] if replaced else []
    known = {**(known or {}), **stale.of(conn, tenant_id, request.user_id, rest, request.as_of)} if rest \
        else known or {}
    for result in results:
        result["no_longer_current"] = known.get(result["id"], [])
    return results


def _said_in_message(row: memory_rows.Found | None) -> bool:
    """Whether a memory is a message's own (episodic, with its message): what facts are drawn from."""
    return row is not None and row.memory_type == "episodic" and row.message_id is not None


def _neighbours(conn, scope: tuple, anchors: list[str], reach: int,
                found: dict[str, memory_rows.Found]) -> list[tuple[str, str, memory_rows.Found, int]]:
    """memories.neighbours of the anchors said in a message: one written directly has no line
    beside it, and when none was, the lookup's round trip is not made."""
    said = [anchor for anchor in anchors if found[anchor].message_id is not None]
    return memory_rows.neighbours(conn, *scope, said, reach) if said else []


def _said(row: memory_rows.Found) -> str:
    """A message's own words, without the speaker's name its episodic memory starts with."""
    return episodic.own_words(row.content, row.speaker)


def _rerank(reranker: rerank.Reranker, deps: Dependencies, query: str, fused: dict[str, float],
            found: dict[str, memory_rows.Found]) -> dict[str, float] | None:
    """id -> reranker score of the best fused candidates; None when the reranker is unusable."""
    candidates = sorted(fused, key=fused.__getitem__, reverse=True)[:rerank.CANDIDATES]
    scores = deps.rerank(reranker, query, [found[item].content for item in candidates])
    return None if scores is None else dict(zip(candidates, scores))


def _answer(request: SearchIn, results: list[dict[str, Any]], total: int, deps: Dependencies) -> dict[str, Any]:
    return {"results": results[: request.top_k], "query": request.query, "total": total,
            "degraded": deps.degraded}
