"""Concurrency: 16 writers race on one user's single-valued key (inline and queued mixed, sent
out of time order) and must leave one active value and one linear history chain in time order;
50 users written in parallel must never see each other's memories."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from concurrent.futures import ThreadPoolExecutor

import httpx

from bench.reliability.api import Api, accepted
from bench.reliability.report import Result
from bench.reliability.stack import Stack, unique

TENANT = "concurrency"
# How long a request or the processing of every turn may take.
SETTLE_SECONDS = 300
COMPANIES = ("Stripe", "Notion", "Figma", "Vercel", "Datadog", "Shopify", "Spotify", "Atlassian",
             "Cloudflare", "Dropbox", "Airbnb", "Pinterest", "Zendesk", "Twilio", "Asana", "Canva")


def run(stack: Stack, quick: bool, deadline: float) -> Result:
    result = Result("concurrency")
    stack.start_runtime({"MEMEX_SWEEP_AFTER_SECONDS": "5"})
    key = stack.create_key(TENANT)
    # Generous: 16 to 50 requests at once on two shared cores queue up behind one another.
    api = Api(stack.url, key, timeout=SETTLE_SECONDS)
    # The first embedding loads the model: not part of the race.
    api.turn(unique("warmup"), "s1", "Hello there.", wait=True)
    _one_key(api, result)
    _many_users(api, result, users=20 if quick else 50)
    api.close()
    stack.stop_runtime()
    return result


def _one_key(api: Api, result: Result) -> None:
    user = unique("raceuser")
    # One company a month, in time order; sent all at once in a shuffled order.
    start = datetime(2025, 1, 6, 9, tzinfo=timezone.utc)
    writes = [(company, (start + timedelta(days=14 * i)).isoformat().replace("+00:00", "Z"))
              for i, company in enumerate(COMPANIES)]
    shuffled = writes[:]
    random.Random(7).shuffle(shuffled)

    def write(index: int) -> str | None:
        company, at = shuffled[index]
        return accepted(_send(lambda: api.turn(user, f"s{index}", f"I work at {company}.", wait=index % 2 == 0,
                                               timestamp=at)))

    with ThreadPoolExecutor(len(shuffled)) as pool:
        ids = list(pool.map(write, range(len(shuffled))))
    result.check("16 writers: every turn accepted", all(ids), f"{sum(1 for i in ids if not i)} refused or unanswered")
    statuses = api.wait_processed([i for i in ids if i], timeout=SETTLE_SECONDS)
    result.check("16 writers: every turn processed", all(s == "processed" for s in statuses.values()),
                 str({s: list(statuses.values()).count(s) for s in set(statuses.values())}))
    employer = [m for m in api.memories(user) if m.get("key") == "employer"]
    active = [m for m in employer if m["active"]]
    latest = max(writes, key=lambda w: w[1])[0]
    result.figures["active values"] = len(active)
    result.check("16 writers: exactly one active employer", len(active) == 1,
                 ", ".join(m["value"] for m in active))
    result.check("16 writers: the active employer is the latest in time", [m["value"] for m in active] == [latest],
                 f"active {[m['value'] for m in active]}, latest {latest}")
    if len(active) != 1:
        result.check("16 writers: one linear history chain", False, "no single head to follow")
        return
    response = api.http.get(f"/v1/memories/{active[0]['id']}/history")
    chain = response.json().get("history", []) if response.status_code == 200 else []
    problems = _chain_problems(chain, employer, [company for company, _ in writes])
    result.figures["chain length"] = len(chain)
    result.check("16 writers: one linear history chain holding every value in time order", not problems,
                 "; ".join(problems[:5]))


def _chain_problems(chain: list[dict], employer: list[dict], in_time_order: list[str]) -> list[str]:
    problems = []
    if [m["value"] for m in chain] != in_time_order:
        problems.append(f"chain values {[m['value'] for m in chain]} != {in_time_order}")
    for older, newer in zip(chain, chain[1:]):
        if newer.get("supersedes") != older["id"]:
            problems.append(f"{newer['value']} does not point at {older['value']}")
        if older["active"] or older.get("valid_to") != newer["valid_from"]:
            problems.append(f"{older['value']} is not closed at {newer['value']}'s start")
        if older.get("valid_to") is not None and older["valid_to"] <= older["valid_from"]:
            problems.append(f"{older['value']} has an empty validity interval")
    orphans = {m["id"] for m in employer} - {m["id"] for m in chain}
    if orphans:
        problems.append(f"{len(orphans)} employer memories outside the chain")
    return problems


def _many_users(api: Api, result: Result, users: int) -> None:
    tokens = {unique("crossuser"): unique("zc") for _ in range(users)}

    def write(item: tuple[int, tuple[str, str]]) -> httpx.Response | None:
        index, (user, token) = item
        return _send(lambda: api.turn(user, "s1", f"My locker code is {token}. I live in Lisbon.",
                                      wait=index % 2 == 0))

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(write, enumerate(tokens.items())))
    ids = [accepted(a) for a in answers]
    refused = [_show(a) for a in answers if not accepted(a)]
    statuses = api.wait_processed([i for i in ids if i], timeout=SETTLE_SECONDS)
    result.check(f"{users} users: every turn accepted and processed",
                 all(ids) and all(s == "processed" for s in statuses.values()),
                 f"{len(refused)} refused ({'; '.join(refused[:3])}), "
                 f"{sum(s != 'processed' for s in statuses.values())} unprocessed "
                 f"({', '.join(sorted({s for s in statuses.values() if s != 'processed'}))})")
    foreign, missing = 0, 0
    names = list(tokens)
    for index, (user, token) in enumerate(tokens.items()):
        seen = " ".join(m["content"] for m in api.memories(user))
        foreign += sum(1 for other, t in tokens.items() if other != user and t in seen)
        missing += token not in seen
        neighbour = tokens[names[(index + 1) % len(names)]]
        found = api.search(user, neighbour, mode="bm25").json().get("results", [])
        foreign += sum(1 for r in found if neighbour in r["content"])
    result.figures["cross-talk"] = foreign
    result.check(f"{users} users: no memory seen by another user", foreign == 0, f"{foreign} foreign memories seen")
    result.check(f"{users} users: each user's own memory there", missing == 0, f"{missing} users miss theirs")


def _send(request) -> httpx.Response | None:
    try:
        return request()
    except httpx.TransportError:
        return None  # unanswered: counted as not accepted


def _show(response: httpx.Response | None) -> str:
    return "no answer" if response is None else f"{response.status_code} {response.text[:160]}"
