"""Probes of an agent talking with one user: recall@5 of the turn that answers each question.

    python -m bench.probes [--split dev|held_out|all] [--conversations ID,...] [--env MEMEX_X=v ...]
                           [--url http://127.0.0.1:8080 [--api-key mx_...]] [--out report.json] [--failures]

The memory-service seed measured itself this way: short conversations of an agent with one user,
probes asked about "the user" right after, scored by recall@5. Here (conversations.yaml, written
for memex) each turn is one `POST /turns` (the seed's route: processed inline), and each probe is
asked twice, at the conversation's last turn (`reference_time`):

- `recall`: `POST /recall`, the seed's route (`require_relevant` on): it passes when a citation of
  an evidence turn is among the first 5 citations and no stale turn is cited before it;
- `search`: `POST /v1/search`, hybrid, top 5: the same, on the results' sources.

A noise probe (about nothing the user said) passes only when nothing is returned.

Without --url it starts `python -m infra.local` on a fresh data dir with its settings at their
defaults, plus `--env` overrides. Conversations are split into a development half (`dev`, looked
at while tuning) and a held-out half (`held_out`, scored only to report): `--split` picks one.
"""

from __future__ import annotations

import argparse
import json
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable, Protocol

import yaml

DATA = Path(__file__).with_name("conversations.yaml")
K = 5
ROUTES = ("recall", "search")
CATEGORIES = ("fact_evolution", "implicit", "opinion_arc", "two_hop", "single_fact", "paraphrase", "noise")
SPLITS = ("dev", "held_out")


class Poster(Protocol):
    def post(self, url: str, *, json: Any, headers: dict[str, str]) -> Any: ...


@dataclass
class Outcome:
    conversation: str
    split: str
    category: str
    query: str
    route: str
    passed: bool
    cited: list[str | None]  # the turn ids of the first K citations or results, None for a turn of no probe


def load(path: Path = DATA, split: str = "all", ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    conversations = yaml.safe_load(path.read_text())["conversations"]
    wanted = set(ids or ())
    return [c for c in conversations
            if (split == "all" or c["split"] == split) and (not wanted or c["id"] in wanted)]


def passed(cited: list[str | None], evidence: list[str], stale: list[str]) -> bool:
    """Whether the first K of `cited` (turn ids, best first) answer the probe: for noise (no
    evidence) nothing at all; else an evidence turn, with no stale turn before it."""
    if not evidence:
        return not cited
    for turn in cited[:K]:
        if turn in stale:
            return False
        if turn in evidence:
            return True
    return False


def run(client: Poster, conversations: list[dict[str, Any]], headers: dict[str, str] | None = None,
        tag: str | None = None) -> list[Outcome]:
    headers = headers or {}
    tag = tag or uuid.uuid4().hex[:8]
    outcomes = []
    for conversation in conversations:
        user = f"probes-{tag}-{conversation['id']}"
        label: dict[str, str] = {}
        for turn in conversation["turns"]:
            answer = _post(client, "/turns", headers, {
                "user_id": user, "session_id": f"{user}-chat", "timestamp": turn["at"],
                "messages": [{"role": "user", "content": turn["user"]},
                             {"role": "assistant", "content": turn["assistant"]}]})
            label[answer["turn_id"]] = turn["id"]
        last = max(datetime.fromisoformat(t["at"].replace("Z", "+00:00")) for t in conversation["turns"])
        now = (last + timedelta(hours=1)).isoformat()
        for probe in conversation["probes"]:
            evidence, stale = probe["evidence"], probe.get("stale", [])
            recalled = _post(client, "/recall", headers, {
                "user_id": user, "session_id": f"{user}-ask", "query": probe["q"], "max_tokens": 1024,
                "reference_time": now})["citations"]
            found = _post(client, "/v1/search", headers, {
                "user_id": user, "query": probe["q"], "top_k": K, "reference_time": now})["results"]
            for route, cited in (("recall", [c["turn_id"] for c in recalled]),
                                 ("search", [r["sources"][0]["turn_id"] if r["sources"] else None for r in found])):
                turns = [label.get(turn) for turn in cited]
                outcomes.append(Outcome(conversation["id"], conversation["split"], probe["category"], probe["q"],
                                        route, passed(turns, evidence, stale), turns[:K]))
    return outcomes


def _post(client: Poster, path: str, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body, headers=headers)
    if response.status_code not in (200, 201):
        raise RuntimeError(f"{path} answered {response.status_code}: {response.text[:500]}")
    return response.json()


def report(outcomes: list[Outcome]) -> dict[str, Any]:
    """split -> route -> {category: share passed, "overall": share, "probes": n} ("all" = both splits)."""
    table: dict[str, Any] = {}
    splits = {o.split for o in outcomes}
    for split in (*SPLITS, "all") if len(splits) > 1 else sorted(splits):
        chosen = [o for o in outcomes if split == "all" or o.split == split]
        table[split] = {}
        for route in ROUTES:
            mine = [o for o in chosen if o.route == route]
            by_category: dict[str, list[bool]] = defaultdict(list)
            for o in mine:
                by_category[o.category].append(o.passed)
            table[split][route] = {
                **{c: round(sum(v) / len(v), 3) for c in CATEGORIES if (v := by_category.get(c))},
                "overall": round(sum(o.passed for o in mine) / len(mine), 3), "probes": len(mine)}
    return table


def render(table: dict[str, Any]) -> str:
    columns = [c for c in (*CATEGORIES, "overall")
               if any(c in routes[r] for routes in table.values() for r in ROUTES)]
    lines = [f"{'split':9} {'route':7} {'n':>3} " + " ".join(f"{c[:11]:>11}" for c in columns)]
    for split, routes in table.items():
        for route in ROUTES:
            row = routes[route]
            cells = [f"{row[c]:>11.2f}" if c in row else f"{'-':>11}" for c in columns]
            lines.append(f"{split:9} {route:7} {row['probes']:>3} " + " ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.probes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="dev")
    parser.add_argument("--conversations", default="", help="comma-separated ids (default: all of the split)")
    parser.add_argument("--env", action="append", default=[], metavar="MEMEX_X=VALUE",
                        help="a setting of the server started (repeatable)")
    parser.add_argument("--url", help="a running server instead of a fresh one")
    parser.add_argument("--api-key")
    parser.add_argument("--out", type=Path, help="the report and every probe's outcome, as JSON")
    parser.add_argument("--failures", action="store_true", help="list the probes that failed")
    args = parser.parse_args(argv)
    from bench.service import local_server, settings_env

    try:
        env = settings_env(args.env)
    except ValueError as exc:
        parser.error(f"--env {exc}")
    conversations = load(split=args.split, ids=filter(None, args.conversations.split(",")))
    if not conversations:
        parser.error("no conversation matches")
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}

    import httpx

    def measure(url: str) -> list[Outcome]:
        with httpx.Client(base_url=url, timeout=120) as client:
            return run(client, conversations, headers)

    if args.url:
        outcomes = measure(args.url)
    else:
        with local_server(env, defaults_only=True) as url:
            outcomes = measure(url)
    table = report(outcomes)
    print(render(table))
    if args.failures:
        for o in outcomes:
            if not o.passed:
                print(f"FAIL {o.split}/{o.conversation} {o.route:6} {o.category:14} {o.query!r} cited {o.cited}")
    if args.out:
        args.out.write_text(json.dumps({"report": table, "outcomes": [asdict(o) for o in outcomes]}, indent=1))
