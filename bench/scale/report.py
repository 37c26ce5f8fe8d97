"""The run's tables (Markdown, as the README shows them) and its plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bench.scale.measure import FLOOR, MODES, crossover, percentiles


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:,.1f} MB"


def _pair(samples: list[float]) -> str:
    p50, p95 = percentiles(samples)
    return f"{p50:.1f} / {p95:.1f}"


def tables(run: dict[str, Any]) -> str:
    out = []
    setup = run["setup"]
    out.append("#### Setup\n")
    out.append("| | |\n|---|---|")
    for key, value in setup.items():
        out.append(f"| {key} | {value} |")

    out.append("\n#### Load and index build\n")
    out.append("| step | seconds |\n|---|---|")
    out.append(f"| COPY of {setup['memories']:,} memories | {run['load_seconds']:.1f} "
               f"({setup['memories'] / run['load_seconds']:,.0f} rows/s) |")
    for name, seconds in run["build_seconds"].items():
        out.append(f"| {'build ' + name if name != 'VACUUM ANALYZE' else name} | {seconds:.1f} |")

    out.append("\n#### Sizes\n")
    out.append("| relation | what | size |\n|---|---|---|")
    for name, what, size in run["sizes"]:
        out.append(f"| {name} | {what} | {_mb(size)} |")

    latency = run["latency"]
    sizes = sorted(latency)
    out.append(f"\n#### Search latency per user size, ms p50 / p95 ({run['samples_per_size']} searches per "
               "size and mode, top_k 10)\n")
    out.append("| memories of the user | " + " | ".join(MODES) + " | floor | hybrid results |")
    out.append("|---" * (len(MODES) + 3) + "|")
    for size in sizes:
        cells = [_pair(latency[size][kind]["ms"]) for kind in (*MODES, FLOOR)]
        out.append(f"| {size:,} | " + " | ".join(cells) + f" | {np.mean(latency[size]['hybrid']['hits']):.1f} |")

    out.append("\n#### The goals' ratios (measured in this run)\n")
    out.append("| ratio | value | goal |\n|---|---|---|")
    small, large = sizes[0], sizes[-1]
    for mode in MODES:
        ratio = percentiles(latency[large][mode]["ms"])[1] / percentiles(latency[small][mode]["ms"])[1]
        goal = "≤ 2" if mode == "hybrid" else ""
        out.append(f"| {mode} p95, {large:,}-memory user / {small:,}-memory user | {ratio:.2f} | {goal} |")
    for size in sizes:
        ratio = percentiles(latency[size]["hybrid"]["ms"])[0] / percentiles(latency[size][FLOOR]["ms"])[0]
        out.append(f"| hybrid p50 / floor p50, {size:,}-memory user | {ratio:.2f} | ≤ 1.5 |")

    iso = run["isolation"]
    shared, alone = percentiles(iso["shared"]), percentiles(iso["alone"])
    out.append(f"\n#### One {iso['size']:,}-memory user, hybrid search, ms ({len(iso['shared'])} searches each, "
               "alternating)\n")
    out.append("| database | p50 | p95 |\n|---|---|---|")
    out.append(f"| {setup['memories']:,} memories | {shared[0]:.1f} | {shared[1]:.1f} |")
    out.append(f"| this user alone | {alone[0]:.1f} | {alone[1]:.1f} |")
    out.append(f"| ratio | {shared[0] / alone[0]:.2f} | {shared[1] / alone[1]:.2f} |")

    caps = run["keyword_caps"]
    out.append(f"\n#### The keyword channel's cap on candidates, {caps['size']:,}-memory user (depth 100, "
               f"{len(caps['caps']['none']['ms'])} questions; configured {caps['configured']:,})\n")
    out.append("| max candidates | ms p50 / p95 | recall@10 / @100 against no cap |\n|---|---|---|")
    for cap, found in caps["caps"].items():
        out.append(f"| {cap if cap == 'none' else f'{int(cap):,}'} | {_pair(found['ms'])} | "
                   f"{np.mean(found['recall@10']):.3f} / {np.mean(found['recall@100']):.3f} |")

    paths, ef = run["vector_paths"], run["vector_ef_search"]
    scope_sizes = sorted(paths)
    efs = sorted(paths[scope_sizes[0]]["hnsw"])
    out.append(f"\n#### The vector channel's two paths per scope size, ms p50 / p95 (depth 100, "
               f"{len(paths[scope_sizes[0]]['exact'])} queries; each path forced)\n")
    out.append("| memories in scope | exact | " + " | ".join(
        f"HNSW ef_search {e} | recall@10 / @100 | index walked" for e in efs) + " |")
    out.append("|---|---|" + "---|---|---|" * len(efs))
    for size in scope_sizes:
        p = paths[size]
        cells = [f"{_pair(p['hnsw'][e]['ms'])} | {np.mean(p['hnsw'][e]['recall@10']):.3f} / "
                 f"{np.mean(p['hnsw'][e]['recall@100']):.3f} | "
                 f"{int(sum(p['hnsw'][e]['hnsw used']))}/{len(p['hnsw'][e]['hnsw used'])}" for e in efs]
        out.append(f"| {size:,} | {_pair(p['exact'])} | " + " | ".join(cells) + " |")
    cross = crossover(scope_sizes, [percentiles(paths[s]["exact"])[0] for s in scope_sizes],
                      [percentiles(paths[s]["hnsw"][ef]["ms"])[0] for s in scope_sizes])
    out.append("\n\"index walked\": in how many of the HNSW path's queries the planner used the HNSW "
               "index (it may rank a small scope from the user's b-tree instead, exactly). Crossover at "
               f"ef_search {ef} (HNSW p50 below exact p50 from there on): "
               + (f"~{cross:,.0f} memories in scope." if cross is not None else "not reached at these sizes."))
    chosen = run.get("vector_preselect", 0)
    counts = sorted(paths[scope_sizes[0]].get("preselect", {}))
    if counts:
        out.append(f"\n#### The vector channel's binary-quantised pre-selection, ms p50 / p95 (depth 100; the "
                   "candidates nearest by Hamming distance, ranked exactly; recall against the exact ranking; "
                   f"configured {chosen or 'off'})\n")
        out.append("| memories in scope | exact | " + " | ".join(
            f"{n:,} candidates | recall@10 / @100" for n in counts) + " |")
        out.append("|---|---|" + "---|---|" * len(counts))
        for size in scope_sizes:
            p = paths[size]
            cells = [f"{_pair(p['preselect'][n]['ms'])} | {np.mean(p['preselect'][n]['recall@10']):.3f} / "
                     f"{np.mean(p['preselect'][n]['recall@100']):.3f}" for n in counts]
            out.append(f"| {size:,} | {_pair(p['exact'])} | " + " | ".join(cells) + " |")
    if "user_indexes" in run:
        out.append(_user_indexes(run["user_indexes"]))
    return "\n".join(out)


def _user_indexes(found: dict[str, Any]) -> str:
    out = [f"\n#### Per-user HNSW indexes (threshold {found['threshold']:,} active memories)\n"]
    out.append(f"Built by the index job in {found['build_seconds']:.1f} s ("
               + ", ".join(f"{user}: {_mb(size)}" for user, size in found["indexes"])
               + f"); dropped in {found['drop_seconds']:.1f} s. Indexes in the plan of each size's vector "
               "statement: " + "; ".join(f"{size:,}: {', '.join(names)}" for size, names in found["plans"].items()))
    latency = found["latency"]
    sizes = sorted(latency)
    kinds = list(latency[sizes[0]])
    out.append(f"\nms p50 / p95, {found['samples_per_size']} searches per size and kind, with the user's index "
               "listed and unlisted in turn (users without one: the same search twice)\n")
    out.append("| memories of the user | " + " | ".join(kinds) + " |")
    out.append("|---" * (len(kinds) + 1) + "|")
    for size in sizes:
        out.append(f"| {size:,} | " + " | ".join(_pair(latency[size][k]) for k in kinds) + " |")
    out.append("\n| ratio (this block) | with | without | goal |\n|---|---|---|---|")
    small, large = sizes[0], sizes[-1]
    p95 = {on: percentiles(latency[large][f"hybrid {on}"])[1] / percentiles(latency[small][f"hybrid {on}"])[1]
           for on in ("with", "without")}
    out.append(f"| hybrid p95, {large:,} / {small:,} | {p95['with']:.2f} | {p95['without']:.2f} | ≤ 2 |")
    for size in sizes:
        floor = percentiles(latency[size][FLOOR])[0]
        out.append(f"| hybrid p50 / floor p50, {size:,} | "
                   + " | ".join(f"{percentiles(latency[size][f'hybrid {on}'])[0] / floor:.2f}" for on in ("with", "without"))
                   + " | ≤ 1.5 |")
    if found.get("writes"):
        (indexed, with_ms), (control, without_ms) = found["writes"]["indexed"], found["writes"]["control"]
        out.append(f"\nOne memory inserted and committed, ms p50 / p95, {len(with_ms)} each in turns: {indexed} "
                   f"(own index) {_pair(with_ms)}, {control} (none) {_pair(without_ms)}; p50 ratio "
                   f"{percentiles(with_ms)[0] / percentiles(without_ms)[0]:.2f}\n")
    if found["paths"]:
        out.append("\nThe vector channel alone (depth 100), ms p50 / p95, recall against the exact ranking\n")
        efs = sorted(next(iter(found["paths"].values()))["own"])
        out.append("| memories in scope | exact | " + " | ".join(
            f"own index, ef_search {ef} | recall@10 / @100" for ef in efs) + " | pre-selection | recall@10 / @100 |")
        out.append("|---|---|" + "---|---|" * (len(efs) + 1))
        for size, p in sorted(found["paths"].items()):
            out.append(f"| {size:,} | {_pair(p['exact'])} | " + " | ".join(
                f"{_pair(q['ms'])} | {np.mean(q['recall@10']):.3f} / {np.mean(q['recall@100']):.3f}"
                for q in [*(p["own"][ef] for ef in efs), p["preselect"]]) + " |")
    return "\n".join(out)


def plot(run: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    latency, paths = run["latency"], run["vector_paths"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    sizes = sorted(latency)
    for kind, color in zip((*MODES, FLOOR), ("tab:blue", "tab:orange", "tab:green", "tab:gray")):
        p50, p95 = zip(*(percentiles(latency[s][kind]["ms"]) for s in sizes))
        left.plot(sizes, p50, "o-", color=color, label=f"{kind} p50")
        left.plot(sizes, p95, "s--", color=color, alpha=0.7, label=f"{kind} p95")
    left.set(xscale="log", yscale="log", xlabel="memories of the searched user",
             ylabel="latency (ms)", title=f"search in a {run['setup']['memories']:,}-memory database")
    left.legend(fontsize=8, ncol=2)
    left.grid(True, which="both", alpha=0.3)
    scope_sizes = sorted(paths)
    ef = run["vector_ef_search"]
    for name, color in (("exact", "tab:red"), ("hnsw", "tab:purple")):
        p50, p95 = zip(*(percentiles(paths[s][name] if name == "exact" else paths[s][name][ef]["ms"])
                         for s in scope_sizes))
        label = "exact" if name == "exact" else f"HNSW, iterative scan, ef_search {ef}"
        right.plot(scope_sizes, p50, "o-", color=color, label=f"{label} p50")
        right.plot(scope_sizes, p95, "s--", color=color, alpha=0.7, label=f"{label} p95")
    chosen = run.get("vector_preselect", 0)
    if chosen and chosen in paths[scope_sizes[0]].get("preselect", {}):
        p50, p95 = zip(*(percentiles(paths[s]["preselect"][chosen]["ms"]) for s in scope_sizes))
        label = f"binary pre-selection of {chosen:,}, re-ranked"
        right.plot(scope_sizes, p50, "o-", color="tab:green", label=f"{label} p50")
        right.plot(scope_sizes, p95, "s--", color="tab:green", alpha=0.7, label=f"{label} p95")
    right.set(xscale="log", yscale="log", xlabel="memories in scope", ylabel="latency (ms)",
              title="vector channel's paths (depth 100)")
    right.legend(fontsize=8)
    right.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
