"""The load benchmark's tables and its saturation plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SEARCH = {"memex": "POST /v1/search", "s2": "POST /s2/memories/search"}
WRITE = {"memex": "POST /v1/turns", "s2": "POST /s2/memories"}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def render_run(run: dict[str, Any]) -> str:
    backlog = ""
    if run.get("backlog_after_s"):
        backlog = f", its write backlog processed {run['backlog_after_s']} s after the run ({run['backlog_left']} left)"
    lines = [f"{run['pipeline']}: {run['users']} users, {run['duration_s']} s{backlog}",
             "| endpoint | requests | RPS | p50 ms | p95 ms | p99 ms | errors |", "|---|---|---|---|---|---|---|"]
    for name, e in run["endpoints"].items():
        lines.append(f"| {name} | {e['requests']} | {e['rps']:.1f} | {_ms(e['p50_ms'])} | {_ms(e['p95_ms'])} "
                     f"| {_ms(e['p99_ms'])} | {e['errors']} |")
    if "cpu_ms_per_request" in run:
        cpu = run["cpu_ms_per_request"]
        lines.append(f"CPU per request: server {cpu['server']} ms, Postgres {cpu['postgres']} ms")
    for name, e in run["endpoints"].items():
        for sample in e.get("error_samples", []):
            lines.append(f"  error {name}: {sample}")
    return "\n".join(lines)


def _side(figures: dict[str, Any], pipeline: str, kind: str) -> dict[str, Any]:
    endpoint = (SEARCH if kind == "search" else WRITE)[pipeline]
    return figures["endpoints"].get(endpoint, {"requests": 0, "rps": 0.0, "p50_ms": None, "p95_ms": None,
                                                "p99_ms": None, "errors": 0})


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}x"


def render(results: dict[str, Any]) -> str:
    memex, s2 = results["memex"]["main"], results["s2"]["main"]
    sc = results["scenario"]
    lines = [f"Load: {results['conversations']} conversations ({results['data']}), {sc['users']} users, "
             f"spawn {sc['spawn_rate']}/s, {sc['duration']} s, think {sc['think'][0]}-{sc['think'][1]} s, "
             f"writes {sc['write_share']:.0%}; ingest {results['ingest_s']} s; S2 rows {results['s2_rows']}; "
             f"total {results['total_s']} s", "",
             "| | memex hybrid | S2-style | memex / S2 |", "|---|---|---|---|"]
    for kind in ("search", "write"):
        m, s = _side(memex, "memex", kind), _side(s2, "s2", kind)
        lines.append(f"| {kind} RPS | {m['rps']:.1f} | {s['rps']:.1f} | {_ratio(m['rps'], s['rps'])} |")
        for p in ("p50", "p95", "p99"):
            lines.append(f"| {kind} {p} ms | {_ms(m[f'{p}_ms'])} | {_ms(s[f'{p}_ms'])} "
                         f"| {_ratio(m[f'{p}_ms'], s[f'{p}_ms'])} |")
        lines.append(f"| {kind} errors | {m['errors']} / {m['requests']} | {s['errors']} / {s['requests']} | |")
    mt, st = memex["endpoints"]["total"], s2["endpoints"]["total"]
    lines.append(f"| total RPS | {mt['rps']:.1f} | {st['rps']:.1f} | {_ratio(mt['rps'], st['rps'])} |")
    for side, name in (("server", "server"), ("postgres", "Postgres")):
        if "cpu_ms_per_request" in memex and "cpu_ms_per_request" in s2:
            m, s = memex["cpu_ms_per_request"][side], s2["cpu_ms_per_request"][side]
            lines.append(f"| CPU ms per request, {name} | {m:.1f} | {s:.1f} | {_ratio(m, s)} |")
    mr, sr = results["memex_recall"]["recall@10"], results["s2_recall"]["recall@10"]
    lines.append(f"| LoCoMo recall@10 ({results['memex_recall']['questions']} questions) | {mr:.3f} | {sr:.3f} "
                 f"| {_ratio(mr, sr)} |")
    lines.append(f"| S2-style recall@10 ranked by cosine alone (alpha 1) | | "
                 f"{results['s2_recall_cosine_only']['recall@10']:.3f} | |")

    lines += ["", "Saturation (each point its own run; search p95 ms, total RPS)",
              "| users | memex RPS | memex search p95 | S2 RPS | S2 search p95 | errors memex / S2 |",
              "|---|---|---|---|---|---|"]
    for mp, sp in zip(results["memex"]["curve"], results["s2"]["curve"]):
        lines.append(f"| {mp['users']} | {mp['endpoints']['total']['rps']:.1f} | {_ms(_side(mp, 'memex', 'search')['p95_ms'])} "
                     f"| {sp['endpoints']['total']['rps']:.1f} | {_ms(_side(sp, 's2', 'search')['p95_ms'])} "
                     f"| {mp['endpoints']['total']['errors']} / {sp['endpoints']['total']['errors']} |")

    if results["levers"]:
        lines += ["", "Levers (memex, main scenario; each variant, then the default settings just after it)",
                  "| variant | search RPS | search p50 | search p95 | write p50 | errors | CPU ms/request server + Postgres "
                  "| recall@10 | search RPS | search p95 | RPS variant / default | p95 variant / default "
                  "| search RPS variant / S2 main |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, pair in results["levers"].items():
            v, d = _side(pair["variant"], "memex", "search"), _side(pair["default"], "memex", "search")
            w = _side(pair["variant"], "memex", "write")
            cpu = pair["variant"].get("cpu_ms_per_request")
            cpu_text = f"{cpu['server']:.1f} + {cpu['postgres']:.1f}" if cpu else "-"
            lines.append(f"| {name} | {v['rps']:.1f} | {_ms(v['p50_ms'])} | {_ms(v['p95_ms'])} | {_ms(w['p50_ms'])} "
                         f"| {pair['variant']['endpoints']['total']['errors']} | {cpu_text} "
                         f"| {pair['recall']['recall@10']:.3f} | {d['rps']:.1f} | {_ms(d['p95_ms'])} "
                         f"| {_ratio(v['rps'], d['rps'])} | {_ratio(v['p95_ms'], d['p95_ms'])} "
                         f"| {_ratio(v['rps'], _side(s2, 's2', 'search')['rps'])} |")

    ms, ss = _side(memex, "memex", "search"), _side(s2, "s2", "search")
    goal = {
        "search RPS >= 2x S2's": ms["rps"] >= 2 * ss["rps"],
        "search p95 lower": (ms["p95_ms"] or 0) < (ss["p95_ms"] or 0),
        "0 errors": mt["errors"] == 0,
        "higher recall@10": mr > sr,
    }
    lines += ["", "Goal: " + "; ".join(f"{name}: {'met' if ok else 'NOT met'}" for name, ok in goal.items())]
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (rps_ax, p95_ax) = plt.subplots(1, 2, figsize=(10, 4))
    for pipeline, label in (("memex", "memex hybrid"), ("s2", "S2-style")):
        points = results[pipeline]["curve"]
        users = [p["users"] for p in points]
        rps_ax.plot(users, [p["endpoints"]["total"]["rps"] for p in points], marker="o", label=label)
        p95_ax.plot(users, [_side(p, pipeline, "search")["p95_ms"] or 0 for p in points], marker="o", label=label)
    rps_ax.set(xlabel="virtual users (think 100-300 ms)", ylabel="requests/s (all endpoints)", title="Throughput")
    p95_ax.set(xlabel="virtual users (think 100-300 ms)", ylabel="search p95 (ms)", title="Search p95 latency")
    for ax in (rps_ax, p95_ax):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"memex vs an S2-style pipeline, same data, embedder and Postgres ({results['data'].split('/')[-1]})")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
