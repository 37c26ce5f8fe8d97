"""Search at a million memories: load, build, measure, report.

    python -m bench.scale [--total 1000000] [--sizes 1000,10000,100000] [--users-per-size 2]
        [--threshold-sizes 1000,3000,10000,30000,100000] [--ef-search 200,800] [--preselect 200,800]
        [--keyword-caps 1000,2000] [--user-indexes]
        [--pool 20000] [--questions 20]
        [--plot docs/perf/scale.png] [--out results.json]

Starts the embedded Postgres on a fresh data dir under /tmp (removed at the end), applies the
project's migrations, COPYs `--total` synthetic memories into one tenant (the measured users,
one user per extra threshold size, filler users for the rest), builds the text and vector indexes
and measures: search latency per user size through memex.retrieval.search for hybrid, bm25 and
vector, beside the physical floor (one query embedding + one primary-key fetch of ten rows); one
small user in the full database against the same user alone in a second database of the same
server; the vector channel's exact ranking against its HNSW walk and its binary-quantised
pre-selection per scope size; with --user-indexes, the per-user HNSW indexes (built, searched
with and without, their cost to each insert, dropped). Prints Markdown
tables and, with --plot, draws the plot. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.scale import corpus, database, measure, report

ROOT = Path(__file__).resolve().parents[2]
STATE = "scale-data.json"  # in a kept data dir: the options it was loaded with and the load's figures


def data_options(args) -> dict:
    """The options that decide what is loaded: a kept data dir is reused only under the same ones."""
    return {key: getattr(args, key) for key in
            ("total", "sizes", "users_per_size", "threshold_sizes", "filler_size", "pool", "seed")}


def _sizes(text: str) -> list[int]:
    return sorted({int(part) for part in text.split(",") if part.strip()})


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000, help="memories in the database")
    parser.add_argument("--sizes", type=_sizes, default=[1_000, 10_000, 100_000], help="measured user sizes")
    parser.add_argument("--users-per-size", type=int, default=2)
    parser.add_argument("--threshold-sizes", type=_sizes, default=[1_000, 3_000, 10_000, 30_000, 100_000],
                        help="scope sizes of the vector channel's exact-vs-HNSW comparison")
    parser.add_argument("--filler-size", type=int, default=5_000, help="memories per filler user")
    parser.add_argument("--pool", type=int, default=20_000, help="distinct texts embedded by the real embedder")
    parser.add_argument("--ef-search", type=_sizes, default=[],
                        help="hnsw.ef_search values the HNSW path (and with --user-indexes, the walk of a user's own "
                             "index) is also measured at (beside the configured one)")
    parser.add_argument("--preselect", type=_sizes, default=[],
                        help="binary-quantised pre-selections (candidates re-ranked exactly) the vector channel "
                             "is also measured at (beside the configured one, if any)")
    parser.add_argument("--keyword-caps", type=_sizes, default=[],
                        help="caps on keyword candidates the keyword channel is also measured at, for the "
                             "largest user (beside the configured one and none)")
    parser.add_argument("--user-indexes", action="store_true",
                        help="also build the per-user HNSW indexes (the index job, configured threshold) and "
                             "search each indexed user with and without theirs, time inserts with and without one, then drop them")
    parser.add_argument("--questions", type=int, default=20, help="timed questions per user")
    parser.add_argument("--warmup", type=int, default=3, help="untimed questions per user first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", type=Path,
                        help="draw the plot here (none by default: the README's is docs/perf/scale.png)")
    parser.add_argument("--out", type=Path, help="also write the raw figures as JSON")
    parser.add_argument("--cache-dir", type=Path, default=corpus.CACHE_DIR,
                        help="where the pool's vectors are kept between runs")
    parser.add_argument("--data-dir", type=Path,
                        help="keep the database here instead of a temporary dir; a later run with the same "
                             "data options reuses it, applying only the migrations it lacks")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # A plain `kill` must still stop the embedded Postgres and remove a temporary data dir.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    progress = database.progress_on_stderr()
    users = database.layout(args.total, args.sizes, args.users_per_size, args.threshold_sizes, args.filler_size)
    progress(f"{len(users)} users, {sum(u.size for u in users):,} memories")
    if args.data_dir and (args.data_dir / "pgdata").exists():
        state = args.data_dir / STATE
        if not state.exists() or json.loads(state.read_text())["options"] != data_options(args):
            raise SystemExit(f"{args.data_dir} holds data loaded with other options (or not finished): "
                             "give --data-dir a new directory")
    with database.running(str(args.data_dir.resolve()) if args.data_dir else None, "memex-scale-") as (server, home):
        run = measure_all(args, users, server, home, progress)
    print(report.tables(run))
    if args.plot:
        report.plot(run, args.plot)
        print(f"\nPlot: {args.plot}")
    if args.out:
        args.out.write_text(json.dumps(run, default=str, indent=1))
    progress("done")


def measure_all(args, users: list[database.User], server: database.Server, home: str, progress) -> dict:
    url = server.url("postgres")
    database.environment(url, home)
    from memex.config import load_settings
    from memex_edge.context import build_context

    settings = load_settings()
    ctx = build_context(settings)

    small = next(u for u in users if u.size == args.sizes[0])
    state_path = Path(home) / STATE
    state = json.loads(state_path.read_text()) if state_path.exists() else None
    if state is not None:
        progress(f"reusing the data loaded at commit {state['commit']}")
        migrated = time.perf_counter()
        applied = database.migrate(url, settings.embedding_dim)
        database.migrate(server.url("scale_alone"), settings.embedding_dim)
        state["reused"] = (f"loaded and indexed by an earlier run (commit {state['commit']}; its load and build "
                           f"figures); migrations applied to it now: {', '.join(applied) or 'none'}, in "
                           f"{time.perf_counter() - migrated:.1f} s with VACUUM ANALYZE")
        progress(state["reused"])
    else:
        state = {"options": data_options(args), "commit": _commit(), **load_all(args, users, small, server, ctx, progress)}
        state_path.write_text(json.dumps(state))
    alone_url = server.url("scale_alone")
    ctx_alone = build_context(dataclasses.replace(settings, database_url=alone_url))

    questions = corpus.questions(args.questions + args.warmup, args.seed + 1)
    warm, timed = questions[:args.warmup], questions[args.warmup:]
    by_size = {size: [u for u in users if u.id.startswith(f"u{size}-")] for size in args.sizes}
    latency = measure.by_size(ctx, by_size, warm, timed, progress)
    isolation = measure.isolation(ctx, ctx_alone, small, warm, timed)
    progress("measured the small user alone")
    scopes = {size: next(u for u in users if u.size == size and not u.id.startswith("f"))
              for size in args.threshold_sizes}
    largest = next(u for u in users if u.size == args.sizes[-1])
    caps = sorted({settings.keyword_max_postings, *args.keyword_caps})
    keyword = measure.keyword_caps(ctx, largest, warm + timed, caps, progress)
    ef_searches = sorted({settings.vector_ef_search, *args.ef_search})
    preselects = sorted({*([settings.vector_preselect] if settings.vector_preselect else []), *args.preselect})
    paths = measure.vector_paths(ctx, scopes, warm, timed, ef_searches, preselects, progress)
    user_indexes = measure.user_indexes(ctx, by_size, warm, timed, sorted({settings.user_vector_index_ef_search, *args.ef_search}),
                                        progress) if args.user_indexes else None

    with ctx.db.connection().cursor() as cur:
        versions = cur.execute(
            """SELECT current_setting('server_version') AS pg,
                      (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector""").fetchone()
    fillers = [u for u in users if u.id.startswith("f")]
    setup = {
        "memories": sum(u.size for u in users),
        "users": f"{len(users)}: " + ", ".join(f"{len(m)} of {s:,}" for s, m in by_size.items())
                 + "".join(f", 1 of {s:,}" for s in args.threshold_sizes if s not in args.sizes)
                 + (f", {len(fillers)} filler users of up to {args.filler_size:,}" if fillers else ""),
        "texts": f"{args.pool:,} distinct memory-like sentences (a quarter facts as the offline extractor "
                 f"writes them, the rest lines of conversation with a Zipf word distribution), embedded by "
                 f"the real embedder ({ctx.embedder.name}); each row reuses one with its own noise "
                 f"(norm {corpus.NOISE_NORM}, normalised again), and an episodic row another as its context",
        "questions": f"{len(timed)} timed (+{len(warm)} warm-up) generated questions per user, embedded at "
                     f"query time by the real embedder",
        "server": f"embedded PostgreSQL {versions['pg']}, pgvector {versions['vector']}, shared_buffers "
                  f"{server.setting('shared_buffers')}; index builds with "
                  + ", ".join(f"{k} {v}" for k, v in database.INDEX_BUILD_SETTINGS.items() if k != "statement_timeout"),
    }
    if "reused" in state:
        setup["data"] = state["reused"]
    return {
        "setup": setup, "load_seconds": state["load_seconds"], "build_seconds": state["build_seconds"],
        "sizes": database.relation_sizes(url), "latency": latency,
        "samples_per_size": args.users_per_size * len(timed),
        "isolation": {**isolation, "size": small.size}, "vector_paths": paths,
        "vector_ef_search": settings.vector_ef_search, "vector_preselect": settings.vector_preselect,
        "keyword_caps": {"size": largest.size, "configured": settings.keyword_max_postings, "caps": keyword},
        **({"user_indexes": user_indexes} if user_indexes else {}),
    }


def load_all(args, users: list[database.User], small: database.User, server: database.Server, ctx,
             progress) -> dict:
    """Embed the pool, COPY every user into the main database and the small user alone into a
    second one, build the deferred indexes; the load's and the builds' seconds."""
    texts, vectors = corpus.embedded_pool(args.pool, args.seed, ctx.embedder, args.cache_dir, progress)
    url = server.url("postgres")
    definitions, load_seconds = database.fill(url, users, texts, vectors, args.seed, ctx.settings.embedding_dim, progress)
    build_seconds = database.build_indexes(url, definitions, progress)

    alone_url = server.create_database("scale_alone")
    alone_definitions, _ = database.fill(alone_url, [small], texts, vectors, args.seed, ctx.settings.embedding_dim,
                                         lambda _: None)
    database.build_indexes(alone_url, alone_definitions, lambda _: None)
    return {"load_seconds": load_seconds, "build_seconds": build_seconds}


def _commit() -> str:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


if __name__ == "__main__":
    main()
