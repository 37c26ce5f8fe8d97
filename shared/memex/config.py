"""All configuration of memex, read from the environment in one place."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memex.rate_limit import InvalidRate, Rate, parse_rate


class ConfigurationError(ValueError):
    """A setting that cannot be used; its message names the variable and what it accepts."""


def _bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


def _positive_int(name: str, default: int) -> int:
    value = _int(name, default)
    if value < 1:
        raise ConfigurationError(f"{name}: must be a whole number of at least 1, got {value}")
    return value


def _str(name: str, default: str = "") -> str:
    return os.environ.get(name, default) or default


def _rate(name: str) -> Rate | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return parse_rate(raw)
    except InvalidRate as exc:
        raise ConfigurationError(f"{name}: {exc}") from None


def _llm_base_url() -> str:
    url = _str("MEMEX_LLM_BASE_URL")
    if url and not _str("MEMEX_LLM_MODEL"):
        # Without a model the LLM counts as not configured: the offline rules would extract, silently.
        raise ConfigurationError("MEMEX_LLM_MODEL: required with MEMEX_LLM_BASE_URL (the chat model's name, "
                                 "e.g. llama3.1); unset both for the offline rules")
    return url


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return float(raw) if raw else default


def _seconds(name: str, default: float, zero: str = "") -> float:
    """A number of seconds, positive; 0 too where `zero` says what 0 means."""
    value = _float(name, default)
    if not (value >= 0 if zero else value > 0):
        allowed = f"0 ({zero}) or a positive number" if zero else "a positive number"
        raise ConfigurationError(f"{name}: must be {allowed} of seconds, got {value:g}")
    return value


@dataclass(frozen=True)
class Settings:
    # Storage
    database_url: str = ""
    database_secret_arn: str = ""
    home: Path = field(default_factory=lambda: Path(".memex"))
    # Every session is opened with these limits: a runaway query, or a transaction left open by a
    # stalled or frozen function, would otherwise hold its locks and its connection indefinitely.
    db_statement_timeout_ms: int = 30_000
    db_idle_in_transaction_timeout_ms: int = 60_000
    # Server-side prepared statements (psycopg's, after a statement's fifth use on a connection).
    # Postgres then runs a search's statements on generic plans: for small users half the CPU it
    # spends on a search, but a large user's vector ranking stops walking the HNSW index (5x
    # slower at 100k memories: README, Performance). Off; RDS Proxy also pins sessions that prepare.
    db_prepared_statements: bool = False
    # Connections of the local runtime's ended request threads kept open for the next new ones: a
    # new session pays a connect and its first search's cold catalog caches (about 7 ms more of
    # Postgres CPU). Beyond these, an ended thread's connection is closed.
    db_spare_connections: int = 8
    # TLS of a connection built from DATABASE_SECRET_ARN (AWS): verified against the CA bundle at
    # `db_sslrootcert` ("system": the OS trust store; or the path of the RDS bundle shipped in the layer).
    db_sslmode: str = "verify-full"
    db_sslrootcert: str = "system"

    # Queues
    extraction_queue_url: str = ""
    supersession_queue_url: str = ""
    backfill_queue_url: str = ""
    sqs_endpoint_url: str = ""
    use_localstack: bool = False
    aws_region: str = "us-east-1"
    max_receive_count: int = 5

    # Embeddings: "local" (all-MiniLM-L6-v2, no network) or "openai" (any compatible endpoint)
    embeddings_provider: str = "local"
    embeddings_base_url: str = ""
    embeddings_api_key: str = ""
    embeddings_model: str = "all-MiniLM-L6-v2"
    embedding_dim: int = 384
    embeddings_batch_size: int = 64
    # The local embedder's BLAS threads (0: the library's default, one per core). Request threads
    # times BLAS threads oversubscribe the cores; bench/concurrency.py measures the choice.
    embeddings_blas_threads: int = 1
    # The local embedder runs one batch at a time, made of every call waiting for it.
    embeddings_coalesce: bool = True
    # The functions that embed on nearly every invocation load the local model at a Lambda's init
    # (memex_edge.context.load_embedder_at_init), not at their first request. Off here, where one
    # process imports every function before its environment is set (the local runtime, the tests);
    # on in template.yaml (docs/measurements/performance.md, sixth stop).
    embedder_at_init: bool = False
    # Search queries whose vectors each process keeps (embeddings/query_cache.py); 0: none.
    embeddings_query_cache: int = 0
    # Every text the write path's recent vectors and the query cache keep is dropped this long after
    # it was kept (embeddings/recent.py): how long another process than the erasing one keeps
    # an erased text at most.
    recent_texts_max_age_seconds: float = 600.0
    # Embedding a search query is interactive: this deadline and one retry, then keyword-only results.
    embeddings_query_timeout_seconds: float = 3.0
    # In AWS the key can live in Secrets Manager instead (resolved when the Context is built).
    embeddings_api_key_secret_arn: str = ""

    # LLM (empty base URL and model: the offline rules are used)
    llm_base_url: str = ""
    llm_api_key: str = ""
    llm_model: str = ""
    # With an LLM configured: split a question that needs two facts into sub-queries at search
    # time. It costs one chat call per search; set MEMEX_LLM_MULTIHOP=false to save it.
    llm_multihop: bool = True
    # All the chat calls of one job (a turn's extraction, a turn's supersession) together end within
    # this (the functions time out at 60 s): past it the judge falls back to the rules and extraction
    # is retried later. Each turn of a batch or a backfill chunk has its own.
    llm_budget_seconds: float = 20.0
    llm_api_key_secret_arn: str = ""
    # The facts one turn keeps from the LLM's answer: at least llm_facts_per_turn, one more per
    # llm_chars_per_fact characters the user said past that, rounded up in each message (a model may
    # answer a hundred facts for "hi").
    # The quality fixture's scripted turns (bench/quality/conversations.yaml) keep 4 facts at most, and
    # take 13.5 characters a fact at the densest (2 facts of 27): none is capped.
    llm_facts_per_turn: int = 8
    llm_chars_per_fact: int = 20
    # The chat calls one worker job makes at once: an extraction batch's turns, a supersession
    # batch's users (each user's turns stay in order). One after another, a full batch (10 turns)
    # with a model answering in 2 s spent the whole budget above, failed its last turns and backed
    # the queues up (bench/soak --llm-delay 2).
    llm_concurrency: int = 10
    # The database connections those calls' threads hold at once, per process (db/connection.py,
    # borrowed): each borrows one for a stretch of database work, none while the model answers.
    llm_db_connections: int = 2

    # Reranker: any Cohere/Jina-compatible `/rerank` endpoint (empty base URL: no reranking). Its
    # scores below `rerank_min_score` are dropped, replacing the built-in relevance floor.
    rerank_base_url: str = ""
    rerank_api_key: str = ""
    rerank_model: str = ""
    rerank_min_score: float = 0.1
    # Each attempt's deadline (two attempts); past it, search keeps the fused ranking.
    rerank_timeout_seconds: float = 5.0
    rerank_api_key_secret_arn: str = ""

    # Offline multi-hop: a keyword search for each name the first hits mention (retrieval/multihop.py).
    offline_expansion: bool = True
    # ... skipped when the question's first hit is decisive: the same memory first on both channels.
    search_expansion_skip_decisive: bool = False
    # A hybrid search whose keyword channel is decisive answers without embedding the query
    # (retrieval/keyword_first.py; measured in the README, Performance).
    search_keyword_first: bool = False
    # Hybrid search's cues (retrieval/search.py), each a factor on a memory's fused relevance, 0 off.
    # Measured with leave-one-conversation-out on LoCoMo-dev (bench/locomo.py --variant; README):
    # the three together (0.3, 0.5, 0.5) were chosen in every fold, R@10 0.759 -> 0.778; speaker
    # 1.0 loses (0.747: adversarial questions name the wrong speaker).
    # A memory whose speaker (or subject) the question names: relevance x (1 + boost).
    search_speaker_boost: float = 0.3
    # ...and the keyword channel searches the question without the participants' names it names
    # (a name is in most lines of a conversation between two people; R@10 0.777 -> 0.782 alone).
    search_keywords_without_speakers: bool = True
    # ...and the question without those names also runs on the vector channel, fused with this
    # weight beside the question's own vector ranking: a speaker's name pulls the question's
    # embedding toward every line they said. 0 off; 0.5: R@10 0.791 -> 0.804, chosen in every
    # leave-one-out fold; with the learned order, 0.75: R@10 0.839 -> 0.844, multi-hop 0.502 -> 0.510,
    # chosen in every fold; 1.0 loses temporal (docs/measurements/locomo.md).
    search_unnamed_vector_weight: float = 0.75
    # A question about "the user" (or "she" / "he", naming no participant) runs on the vector channel
    # in the user's voice ("Is the user a runner?" as "Am I a runner?", first_person.py), as the
    # user's facts are embedded (embedded_text.py); the question as asked is fused beside it with
    # this weight (0: not embedded) and opens the floor's gate too. Measured on bench.probes
    # (docs/quality.md): 0 and 0.5 scored the same; 0.5 still finds facts embedded before the user's voice
    # (until a re-embed).
    search_first_person: bool = True
    search_as_asked_vector_weight: float = 0.5
    # A question that names the user by their own name (their current `name` fact, or the name
    # their own messages carry), for a user with no other participant, is searched as the question
    # about "the user" ("Where does Dana work?" as "Where does the user work?"; speakers.as_the_user),
    # and embedded as asked beside it at search_as_asked_vector_weight ("Melanie" finds "Melanie moved
    # to Paris.").
    # Read with the participants' names (memories.ahead), so not in a keyword-first search, which
    # reads none. With other participants too it lost LoCoMo-dev R@10 0.835 -> 0.828, every
    # leave-one-out fold choosing it off (docs/measurements/locomo.md): LoCoMo is left as it was.
    search_user_names: bool = True
    # A memory valid within a period the question names ("last week", "in May 2023"): x (1 + boost).
    search_temporal_boost: float = 0.5
    # A question that asks what holds now ("now", "these days", "currently", a view of something asked in the
    # present tense: temporal.asks_present): the kept memories' relevance x (1 + boost x how late each became
    # valid among them, 0 to 1).
    # Measured on bench.probes (docs/quality.md). 0: off.
    search_present_boost: float = 0.5
    # A question about the past ("where did I work before?") also finds the facts that were replaced
    # (retrieval/past.py). Measured on bench.asked's replaced facts and LoCoMo
    # (docs/retrieval.md, "Questions about the past").
    search_past: bool = True
    # A question about a chain of values ("where did she work before Shopify?", "her first job", "when
    # did she move to Dublin?") gets the chain's member that answers it first (retrieval/chains.py).
    # Measured on bench.year's history questions (docs/measurements/year.md).
    search_chains: bool = True
    # A present question that names a key whose value ended with nothing after it ("where does she
    # work?" after "I left Feedzai.") gets the message that ended it first; the ended fact itself is
    # left to a question about the past (retrieval/current_first.py). Measured on bench.asked's
    # `ended` (quality.md).
    search_ended: bool = True
    # A question that asks only what was said in a period ("what did I tell you yesterday?") gets that
    # period's messages (retrieval/period.py).
    search_periods: bool = True
    # A message whose words read as one ranked above it goes below every distinct line, so that a line
    # said on fifty evenings takes one place of the top k, not ten (retrieval/repeats.py; trial 15).
    # Measured on LoCoMo (docs/measurements/locomo.md, nineteenth stop).
    search_repeats_below: bool = True
    # The most messages a question about a period reads looking past repeats for `top_k` distinct lines:
    # a period of a device's "Door opened." said 100,000 times holds fewer than top_k distinct lines,
    # and every message of it was read (retrieval/repeats.py, search._said_within).
    search_period_reads: int = 1000
    # A question about what two people it names have in common ("What movies have both Joanna and
    # Nate seen?") is searched without "both", "in common", a closing "share" (retrieval/in_common.py).
    # LoCoMo-dev: 10 questions of this shape; multi-hop R@10 0.516 -> 0.518, held out 0.502 -> 0.504,
    # no other figure moved (docs/measurements/locomo.md, seventh stop).
    search_in_common: bool = True
    # A question asking for the name of someone or some animal of one kind ("my wife", "her dog")
    # drops the memories that name only things of other kinds (retrieval/kinds.py). Measured on
    # bench.asked's `kinds` and LoCoMo (docs/measurements/quality.md).
    search_kinds: bool = True
    # A question about someone in the user's life ("where does my wife work?", "how old is Ana?")
    # drops the user's own facts and the messages they came from, and what names only another person
    # in the user's life ("The user's dad lives in Bristol." to "where does my brother live?";
    # retrieval/whose.py). Measured on
    # bench.asked's `whose` and LoCoMo (docs/measurements/quality.md).
    search_whose: bool = True
    # A question naming a kind of fact ("any pets?", "her hobbies", "his family") also ranks the
    # user's current facts filed under that kind's keys, which pass the floor (retrieval/topics.py).
    # Measured on bench.asked's `topics` and LoCoMo (docs/measurements/quality.md).
    search_topics: bool = True
    # The messages said within `reach` of one of the `hits` best memories' own (in its turn) get
    # `share` of that memory's relevance when it beats their own. Reach 2 (the line before the
    # question a hit answers, the reply after its reply): R@10 0.777 -> 0.791, chosen in every fold.
    search_neighbour_share: float = 0.5
    search_neighbour_hits: int = 5
    search_neighbour_reach: int = 2
    # The line right after one of those memories that asks something (its reply) gets `reply_share`
    # instead, when more (retrieval/replies.py). 0: the neighbour share alone. 0.85: LoCoMo R@5 / R@10
    # 0.755 / 0.844 -> 0.764 / 0.849, chosen in four of five leave-one-out folds (0.7, 0.85, 1.0).
    search_reply_share: float = 0.85
    # The line right before one of those memories that opens with a yes ("Yep!", "Yeah, it does!")
    # gets `confirmed_share` instead, when more (retrieval/confirmed.py). 0: the neighbour share alone.
    # 0.85: LoCoMo R@10 0.848 -> 0.851 (held out 0.848 -> 0.852), chosen in four of five folds (0.7, 0.85, 1.0).
    search_confirmed_share: float = 0.85
    # A "When" question that names no period: a candidate that says a time counted from its day
    # ("last week", "tomorrow") counts `when_boost` more, as the time cue's (retrieval/answer_type.py). 0: off.
    # 0.5: LoCoMo temporal R@5 / R@10 0.850 / 0.914 -> 0.882 / 0.920 (held out R@5 0.759 -> 0.764),
    # chosen in every leave-one-out fold (0.25, 0.5, 1.0).
    search_when_boost: float = 0.5
    # The best 50 of a hybrid search re-ordered by a linear model of what the search knows of each
    # (retrieval/learned.py): R@5 / R@10 0.702 / 0.806 -> 0.742 / 0.830 leave-one-conversation-out
    # on LoCoMo-dev.
    search_learned: bool = True
    # In the learned order, a fact the question's own signals would not keep (under the item floor)
    # is not ranked above the message it was drawn from when that message is the more relevant
    # (learned.reorder): its importance does not carry it over words it does not say. Measured on
    # bench.asked and LoCoMo (docs/measurements/quality.md).
    search_fact_own_relevance: bool = True
    # Bounds on a search's work whatever the user's history (db/memories.py). Keyword: candidates
    # come from the query's rarest terms while their postings add up to at most this many (and no
    # more from the rarest alone). bench/scale at 100k memories: 2000 keeps recall@10 against no
    # cap at 1.000 and halves the p95 of 5000; 1000 loses some (0.983).
    keyword_max_postings: int = 2000
    # Vector: a user with at most this many memories in scope is ranked exactly; above it, through
    # the HNSW index with iterative scan (pgvector >= 0.8). bench/scale in a 1M database: the walk
    # loses recall (recall@10 0.90 at 30k, 0.76 at 100k); at 100k reading every vector costs 7.5x
    # the walk, the binary pre-selection below 1.3-2.1x (two runs) for recall@10 0.99. Ranked
    # exactly (through the pre-selection past vector_preselect_above) up to the largest user
    # measured; users past it walk.
    vector_exact_max: int = 100_000
    # The HNSW walk's candidate list (hnsw.ef_search, at least the depth asked for). bench/scale:
    # 400 beats 200 on both recall and latency at 30k and 100k (fewer iterative rounds); 800 gains
    # recall at 100k (0.84 against 0.79 at depth 100) for ~1.5x the time.
    vector_ef_search: int = 400
    # Up to vector_exact_max, a user with more than vector_preselect_above memories in scope has
    # only the vector_preselect memories nearest by Hamming distance between binary-quantised
    # vectors (an index-only scan, migration 0010) ranked exactly by cosine, not every vector of
    # the scope (0: every vector). bench/scale, depth 100: 800 candidates keep recall@10 against
    # the exact ranking at 0.985-1.0 from 1k to 100k memories (@100 0.905-1.0; 400: 0.965-1.0
    # and 0.831-0.97), for ~0.5x the exact ranking's time at 10k, 0.17-0.27x at 30k; at 1k-3k it
    # costs 1.0-2.1x: the two cross at ~3k-5k memories (four runs).
    vector_preselect: int = 800
    vector_preselect_above: int = 5_000
    # A user with at least this many active memories gets an HNSW index of their own (a partial
    # index, db/vector_indexes.py), built by the scheduled index job every
    # `user_vector_index_interval_seconds`; their unfiltered vector searches walk it, whatever the
    # thresholds above, with `user_vector_index_ef_search`. Dropped when the user falls under half
    # of it, or is erased; 0: none. bench/scale, 1M memories, the 100k user (two runs): the walk of
    # its own index takes 41-43 ms p50 at recall@10 0.875-0.905 against the shared index's walk,
    # 58-69 ms at 0.755, and the pre-selection's 154-183 ms at 0.99 (hybrid p50 0.61-0.63x with it
    # than without). So by default only the users past vector_exact_max, who would walk the shared
    # index, get one: better on both counts; 50,000 trades the pre-selection's recall for latency.
    # ef_search 400 / 800 / 1000 on the own index: recall@10 0.875 / 0.880 / 0.900, p50 alike.
    # `user_vector_index_build_memory`: the build's maintenance_work_mem (an HNSW graph that does
    # not fit is built far more slowly: ~2 KB a 384-d memory, 195 MB for 100,000).
    user_vector_index_min: int = 100_001
    user_vector_index_ef_search: int = 400
    user_vector_index_interval_seconds: int = 3600
    user_vector_index_build_memory: str = "1GB"

    # HTTP
    require_api_key: bool = False
    max_body_bytes: int = 1_048_576
    # A `?wait=true` turn whose messages hold more characters than this is not processed inline but
    # queued (202, its `error` saying why): told by its size before any work, so that the answer comes
    # well within the HTTP functions' 29 s whatever the turn holds. `python -m bench.inline_turns` (a
    # fresh `python -m infra.local`, one run, load 6-8 on 2 cores): varied prose 100k characters 4.9 s,
    # 200k 4.3 s, 400k 8.4 s, 900k 7.4 s; one repeated sentence 1.1, 1.7, 4.4, 7.7 s (before the
    # extractor's sieve qa5 measured 25-38 s for 1 MB on `make dev`). 300,000 leaves a margin of 3x or
    # more for a busier machine, Lambda's 0.58 vCPU at 1,024 MB and the shapes that extract slowest per
    # character (bench.extractor_speed); a chat turn is a few thousand characters.
    inline_max_chars: int = 300_000
    default_tenant: str = "default"
    # How far ahead of the server's clock a client's `timestamp` or `reference_time` may be.
    max_clock_skew_seconds: int = 86_400
    # The local runtime's HTTP server processes (its workers and queues stay in the first one):
    # one process runs its request threads' Python under one GIL (bench/load measures the choice).
    local_http_processes: int = 1
    # Requests a tenant may make (a token bucket in Postgres, holding across every Lambda and server
    # process); None: no limit. Overridden per tenant and per key from the CLI (memex tenants / keys).
    rate_limit: Rate | None = None

    # Where metrics go: "emf" (CloudWatch embedded metric format on stdout, in Lambda),
    # "prometheus" (GET /metrics; the local runtime's default) or "off".
    metrics: str = "emf"

    # Turns whose publish failed stay queued; the sweep re-publishes them after this long.
    sweep_after_seconds: int = 60

    # A running backfill none of whose chunks has finished for this long reads back as "stalled":
    # its chain of chunk messages may have died with the process that held it (`memex backfill`'s
    # own loopback queue, killed), and nothing else would ever say so. Longer than a chunk takes.
    backfill_stalled_after_seconds: int = 3600
    # A turn re-published this many times without progress is marked failed, not sent forever.
    sweep_max_republish: int = 5

    # A user's erasure (memories.erase_user_rows) goes in transactions of at most this many of their
    # memories or turns, each well within the HTTP functions' 20 s statement timeout; a request begins
    # no new one after `erasure_request_seconds` (0: none after its first), within the HTTP functions'
    # 29 s, and answers 202 with the rest left to a DELETE sent again or to the sweep (which goes by its
    # invocation's time left: functions/sweep/app.py).
    erasure_chunk_rows: int = 2_000
    erasure_request_seconds: float = 15.0

    # Consolidation (consolidation/): users with more than `threshold` active episodic memories get
    # their episodic memories older than `min_age_days` grouped, `batch_size` at a time (oldest
    # first), and each group of near-duplicates or same-topic lines replaced by one summary.
    # Two lines group when their word sets overlap by `jaccard` (the seed's rule) or their
    # vectors by `similarity` (cosine, 0 turns it off), at most `max_group` a summary (a line said
    # again, same words in order, joins its first saying past it). Measured on
    # LoCoMo-dev (bench/consolidation.py, 5 conversations): Jaccard alone merged nothing in
    # conv-26; cosine 0.92, groups of 3: active memories -4.3%, hybrid recall@10 0.760 -> 0.757;
    # 0.95: -1.0%, 0.759; 0.85, groups of 8 (conv-26 alone): -30%, recall@10 -0.033.
    consolidation_threshold: int = 200
    consolidation_batch_size: int = 500
    consolidation_interval_seconds: int = 3600
    consolidation_min_age_days: float = 30.0
    consolidation_jaccard: float = 0.7
    consolidation_similarity: float = 0.92
    consolidation_max_group: int = 3

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_model and (self.llm_base_url or self.llm_api_key))

    @property
    def rerank_configured(self) -> bool:
        return bool(self.rerank_base_url)


def load_settings() -> Settings:
    provider = _str("MEMEX_EMBEDDINGS_PROVIDER", "local")
    default_model = "all-MiniLM-L6-v2" if provider == "local" else "text-embedding-3-small"
    default_dim = 384 if provider == "local" else 1536
    return Settings(
        database_url=_str("DATABASE_URL"),
        database_secret_arn=_str("DATABASE_SECRET_ARN"),
        home=Path(_str("MEMEX_HOME", ".memex")),
        db_statement_timeout_ms=_int("MEMEX_DB_STATEMENT_TIMEOUT_MS", 30_000),
        db_idle_in_transaction_timeout_ms=_int("MEMEX_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", 60_000),
        db_prepared_statements=_bool("MEMEX_DB_PREPARED_STATEMENTS", False),
        db_spare_connections=_int("MEMEX_DB_SPARE_CONNECTIONS", 8),
        db_sslmode=_str("MEMEX_DB_SSLMODE", "verify-full"),
        db_sslrootcert=_str("MEMEX_DB_SSLROOTCERT", "system"),
        extraction_queue_url=_str("EXTRACTION_QUEUE_URL"),
        supersession_queue_url=_str("SUPERSESSION_QUEUE_URL"),
        backfill_queue_url=_str("BACKFILL_QUEUE_URL"),
        sqs_endpoint_url=_str("SQS_ENDPOINT_URL"),
        use_localstack=_bool("MEMEX_LOCALSTACK", False),
        aws_region=_str("AWS_REGION", _str("AWS_DEFAULT_REGION", "us-east-1")),
        max_receive_count=_int("MEMEX_MAX_RECEIVE_COUNT", 5),
        embeddings_provider=provider,
        embeddings_base_url=_str("MEMEX_EMBEDDINGS_BASE_URL"),
        embeddings_api_key=_str("MEMEX_EMBEDDINGS_API_KEY"),
        embeddings_model=_str("MEMEX_EMBEDDINGS_MODEL", default_model),
        embedding_dim=_int("MEMEX_EMBEDDING_DIM", default_dim),
        embeddings_batch_size=_int("MEMEX_EMBEDDINGS_BATCH_SIZE", 64),
        embeddings_blas_threads=_int("MEMEX_EMBEDDINGS_BLAS_THREADS", 1),
        embeddings_coalesce=_bool("MEMEX_EMBEDDINGS_COALESCE", True),
        embedder_at_init=_bool("MEMEX_EMBEDDER_AT_INIT", False),
        embeddings_query_cache=_int("MEMEX_EMBEDDINGS_QUERY_CACHE", 0),
        recent_texts_max_age_seconds=_seconds("MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS", 600.0),
        embeddings_query_timeout_seconds=_float("MEMEX_EMBEDDINGS_QUERY_TIMEOUT_SECONDS", 3.0),
        embeddings_api_key_secret_arn=_str("MEMEX_EMBEDDINGS_API_KEY_SECRET_ARN"),
        llm_base_url=_llm_base_url(),
        llm_api_key=_str("MEMEX_LLM_API_KEY"),
        llm_model=_str("MEMEX_LLM_MODEL"),
        llm_multihop=_bool("MEMEX_LLM_MULTIHOP", True),
        llm_budget_seconds=_float("MEMEX_LLM_BUDGET_SECONDS", 20.0),
        llm_api_key_secret_arn=_str("MEMEX_LLM_API_KEY_SECRET_ARN"),
        llm_facts_per_turn=_positive_int("MEMEX_LLM_FACTS_PER_TURN", 8),
        llm_chars_per_fact=_positive_int("MEMEX_LLM_CHARS_PER_FACT", 20),
        llm_concurrency=_positive_int("MEMEX_LLM_CONCURRENCY", 10),
        llm_db_connections=_positive_int("MEMEX_LLM_DB_CONNECTIONS", 2),
        rerank_base_url=_str("MEMEX_RERANK_BASE_URL"),
        rerank_api_key=_str("MEMEX_RERANK_API_KEY"),
        rerank_model=_str("MEMEX_RERANK_MODEL"),
        rerank_min_score=_float("MEMEX_RERANK_MIN_SCORE", 0.1),
        rerank_timeout_seconds=_float("MEMEX_RERANK_TIMEOUT_SECONDS", 5.0),
        rerank_api_key_secret_arn=_str("MEMEX_RERANK_API_KEY_SECRET_ARN"),
        offline_expansion=_bool("MEMEX_OFFLINE_EXPANSION", True),
        search_expansion_skip_decisive=_bool("MEMEX_SEARCH_EXPANSION_SKIP_DECISIVE", False),
        search_keyword_first=_bool("MEMEX_SEARCH_KEYWORD_FIRST", False),
        search_speaker_boost=_float("MEMEX_SEARCH_SPEAKER_BOOST", 0.3),
        search_keywords_without_speakers=_bool("MEMEX_SEARCH_KEYWORDS_WITHOUT_SPEAKERS", True),
        search_unnamed_vector_weight=_float("MEMEX_SEARCH_UNNAMED_VECTOR_WEIGHT", 0.75),
        search_first_person=_bool("MEMEX_SEARCH_FIRST_PERSON", True),
        search_as_asked_vector_weight=_float("MEMEX_SEARCH_AS_ASKED_VECTOR_WEIGHT", 0.5),
        search_user_names=_bool("MEMEX_SEARCH_USER_NAMES", True),
        search_temporal_boost=_float("MEMEX_SEARCH_TEMPORAL_BOOST", 0.5),
        search_present_boost=_float("MEMEX_SEARCH_PRESENT_BOOST", 0.5),
        search_past=_bool("MEMEX_SEARCH_PAST", True),
        search_chains=_bool("MEMEX_SEARCH_CHAINS", True),
        search_ended=_bool("MEMEX_SEARCH_ENDED", True),
        search_periods=_bool("MEMEX_SEARCH_PERIODS", True),
        search_repeats_below=_bool("MEMEX_SEARCH_REPEATS_BELOW", True),
        search_period_reads=_positive_int("MEMEX_SEARCH_PERIOD_READS", 1000),
        search_in_common=_bool("MEMEX_SEARCH_IN_COMMON", True),
        search_kinds=_bool("MEMEX_SEARCH_KINDS", True),
        search_whose=_bool("MEMEX_SEARCH_WHOSE", True),
        search_topics=_bool("MEMEX_SEARCH_TOPICS", True),
        search_neighbour_share=_float("MEMEX_SEARCH_NEIGHBOUR_SHARE", 0.5),
        search_neighbour_hits=_int("MEMEX_SEARCH_NEIGHBOUR_HITS", 5),
        search_neighbour_reach=_int("MEMEX_SEARCH_NEIGHBOUR_REACH", 2),
        search_reply_share=_float("MEMEX_SEARCH_REPLY_SHARE", 0.85),
        search_confirmed_share=_float("MEMEX_SEARCH_CONFIRMED_SHARE", 0.85),
        search_when_boost=_float("MEMEX_SEARCH_WHEN_BOOST", 0.5),
        search_learned=_bool("MEMEX_SEARCH_LEARNED", True),
        search_fact_own_relevance=_bool("MEMEX_SEARCH_FACT_OWN_RELEVANCE", True),
        keyword_max_postings=_int("MEMEX_KEYWORD_MAX_POSTINGS", 2000),
        vector_exact_max=_int("MEMEX_VECTOR_EXACT_MAX", 100_000),
        vector_ef_search=_int("MEMEX_VECTOR_EF_SEARCH", 400),
        vector_preselect=_int("MEMEX_VECTOR_PRESELECT", 800),
        vector_preselect_above=_int("MEMEX_VECTOR_PRESELECT_ABOVE", 5_000),
        user_vector_index_min=_int("MEMEX_USER_VECTOR_INDEX_MIN", 100_001),
        user_vector_index_ef_search=_int("MEMEX_USER_VECTOR_INDEX_EF_SEARCH", 400),
        user_vector_index_interval_seconds=_int("MEMEX_USER_VECTOR_INDEX_INTERVAL_SECONDS", 3600),
        user_vector_index_build_memory=_str("MEMEX_USER_VECTOR_INDEX_BUILD_MEMORY", "1GB"),
        require_api_key=_bool("MEMEX_REQUIRE_API_KEY", False),
        max_body_bytes=_int("MEMEX_MAX_BODY_BYTES", 1_048_576),
        inline_max_chars=_int("MEMEX_INLINE_MAX_CHARS", 300_000),
        default_tenant=_str("MEMEX_DEFAULT_TENANT", "default"),
        max_clock_skew_seconds=_int("MEMEX_MAX_CLOCK_SKEW_SECONDS", 86_400),
        local_http_processes=_int("MEMEX_LOCAL_HTTP_PROCESSES", 1),
        metrics=_str("MEMEX_METRICS", "emf"),
        rate_limit=_rate("MEMEX_RATE_LIMIT"),
        sweep_after_seconds=_int("MEMEX_SWEEP_AFTER_SECONDS", 60),
        backfill_stalled_after_seconds=_int("MEMEX_BACKFILL_STALLED_AFTER_SECONDS", 3600),
        sweep_max_republish=_int("MEMEX_SWEEP_MAX_REPUBLISH", 5),
        erasure_chunk_rows=_positive_int("MEMEX_ERASURE_CHUNK_ROWS", 2_000),
        # 0 is a time too: a request's erasure begins its first transaction whatever the time (a DELETE
        # always makes progress; memories.erase_user), and none after it.
        erasure_request_seconds=_seconds("MEMEX_ERASURE_REQUEST_SECONDS", 15.0, zero="one transaction a request"),
        consolidation_threshold=_int("MEMEX_CONSOLIDATION_THRESHOLD", 200),
        consolidation_batch_size=_int("MEMEX_CONSOLIDATION_BATCH_SIZE", 500),
        consolidation_interval_seconds=_int("MEMEX_CONSOLIDATION_INTERVAL_SECONDS", 3600),
        consolidation_min_age_days=_float("MEMEX_CONSOLIDATION_MIN_AGE_DAYS", 30.0),
        consolidation_jaccard=_float("MEMEX_CONSOLIDATION_JACCARD", 0.7),
        consolidation_similarity=_float("MEMEX_CONSOLIDATION_SIMILARITY", 0.92),
        consolidation_max_group=_int("MEMEX_CONSOLIDATION_MAX_GROUP", 3),
    )
