"""Fuzzing: schemathesis generates requests for every operation of `/openapi.json`, valid and
invalid, and each answer is checked against the wire contract: never a 5xx, every 4xx in the
error shape."""

from __future__ import annotations

import time
from collections import Counter

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from bench.reliability.report import Result, error_shaped
from bench.reliability.stack import Stack

MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


def run(stack: Stack, quick: bool, deadline: float) -> Result:
    result = Result("fuzz")
    target = 200 if quick else 1000
    stack.start_runtime({})
    key = stack.create_key("fuzz")
    schema = schemathesis.openapi.from_url(f"{stack.url}/openapi.json")
    operations = [op.ok() for op in schema.get_all_operations()]
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {key}"
    statuses: Counter[int] = Counter()
    per_operation: Counter[str] = Counter()
    problems: list[str] = []
    unanswered = 0

    def send(case, label: str) -> None:
        nonlocal unanswered
        per_operation[label] += 1
        try:
            response = case.call(base_url=stack.url, session=session, timeout=30)
        except requests.RequestException as exc:
            unanswered += 1
            problems.append(f"{label}: no answer ({type(exc).__name__})")
            return
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            problems.append(f"{label} -> {response.status_code} {response.text[:160]}")
        elif response.status_code >= 400 and not error_shaped(response):
            problems.append(f"{label} -> {response.status_code} not in the error shape: {response.text[:160]}")

    # Round-robin over operations and modes until the budget is spent: small operations (no
    # parameters) exhaust their examples quickly, the others take the rest. The budget never cuts the
    # first round short: the last operation of the document is fuzzed as the first is.
    per_round = max(5, target // (len(operations) * len(MODES)))
    labels = [f"{operation.method.upper()} {operation.path}" for operation in operations]

    def spent() -> bool:
        return sum(per_operation.values()) >= target and all(per_operation[label] for label in labels)

    while not spent() and time.monotonic() < deadline:
        sent_before = sum(per_operation.values())
        for operation, label in zip(operations, labels):
            for mode in MODES:
                if spent() or time.monotonic() >= deadline:
                    break

                try:
                    _fuzz_operation(operation, mode, per_round, lambda case, label=label: send(case, label))
                except Unsatisfiable:
                    if mode is not GenerationMode.NEGATIVE:
                        problems.append(f"{label} ({mode.value}): generation failed: no valid request")
                    # else: every value its parameters accept is valid; there is no invalid request to make
                except Exception as exc:  # noqa: BLE001 - a strategy that cannot generate is reported
                    problems.append(f"{label} ({mode.value}): generation failed: {type(exc).__name__}: {exc}"[:300])
        if sum(per_operation.values()) == sent_before:
            break

    total = sum(per_operation.values())
    fivexx = sum(n for status, n in statuses.items() if status >= 500)
    bad_4xx = sum(1 for p in problems if "not in the error shape" in p)
    result.figures.update({"operations": len(operations), "requests fuzzed": total, "5xx seen": fivexx,
                           "4xx not error-shaped": bad_4xx, "unanswered": unanswered,
                           "statuses": dict(sorted(statuses.items()))})
    untouched = [label for label in labels if per_operation[label] == 0]
    result.check("every operation fuzzed", not untouched, ", ".join(untouched))
    result.check(f"at least {target} requests", total >= target, f"{total} sent")
    result.check("no 5xx", fivexx == 0, _sample(problems, " -> 5"))
    result.check("every 4xx in the error shape", bad_4xx == 0, _sample(problems, "error shape"))
    result.check("every request answered", unanswered == 0, _sample(problems, "no answer"))
    result.check("strategies generate", not any("generation failed" in p for p in problems),
                 _sample(problems, "generation failed"))
    stack.stop_runtime()
    return result


def _fuzz_operation(operation, mode: GenerationMode, examples: int, send) -> None:
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode))
    def fuzz_one(case) -> None:
        send(case)

    fuzz_one()


def _sample(problems: list[str], marker: str, limit: int = 5) -> str:
    found = list(dict.fromkeys(p for p in problems if marker in p))
    return "; ".join(found[:limit]) + (f" (+{len(found) - limit} more)" if len(found) > limit else "")
