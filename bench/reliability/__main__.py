"""Run the reliability campaign and print one table of figures; exit 1 when any check fails.

    python -m bench.reliability [--quick] [--only fuzz,faults,...] [--out FILE.json]

Each scenario family gets a fresh data directory (its own Postgres, SQS and runtime) and a time
bound; a scenario that overruns it, or raises, counts as a failed check.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from bench.reliability import concurrency, erasure, faults, fuzz, isolation
from bench.reliability.report import Result
from bench.reliability.stack import stack

# Seconds each family may take (full, quick): about twice what it took on the shared 2-core
# machine under load.
SCENARIOS = {
    "fuzz": (fuzz.run, 600, 120),
    "faults": (faults.run, 900, 300),
    "concurrency": (concurrency.run, 1200, 600),
    "isolation": (isolation.run, 300, 120),
    "erasure": (erasure.run, 300, 120),
}

# The figures the table shows, in this order, when a scenario reports them.
COLUMNS = ("requests fuzzed", "5xx seen", "faults injected", "faults survived", "turns lost",
           "turns duplicated", "leaks", "rows left")


def run_one(name: str, quick: bool) -> Result:
    runner, full_bound, quick_bound = SCENARIOS[name]
    bound = quick_bound if quick else full_bound
    outcome: dict[str, Result] = {}
    started = time.monotonic()

    def target() -> None:
        with tempfile.TemporaryDirectory(prefix=f"memex-reliability-{name}-") as home:
            try:
                with stack(Path(home)) as running:
                    outcome["result"] = runner(running, quick, started + bound)
            except Exception as exc:  # noqa: BLE001 - a crashed scenario is a failed one, reported
                failed = Result(name)
                failed.check("scenario ran to the end", False, f"{type(exc).__name__}: {exc}"[:2000])
                traceback.print_exc()
                outcome["result"] = failed

    # A thread, so that a scenario stuck past its bound cannot hold the campaign: its leftovers
    # die with this process.
    thread = threading.Thread(target=target, name=f"scenario-{name}", daemon=True)
    thread.start()
    # The scenario also gets time to stop its services after its bound.
    thread.join(bound + 60)
    result = outcome.get("result")
    if result is None:
        result = Result(name)
        result.check(f"finished within {bound} s", False, "still running: abandoned")
    result.seconds = time.monotonic() - started
    return result


def table(results: list[Result]) -> str:
    columns = [c for c in COLUMNS if any(c in r.figures for r in results)]
    header = ["scenario", "checks", "passed", "failed", "seconds", *columns]
    rows = [[r.scenario, str(len(r.checks)), str(r.passed), str(r.failed), f"{r.seconds:.0f}",
             *(str(r.figures.get(c, "")) for c in columns)] for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in [header, *rows]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the short form the test suite runs")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenario families")
    parser.add_argument("--out", type=Path, help="also write every check and figure as JSON")
    args = parser.parse_args(argv)
    # The loopback SQS logs every request it serves.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")

    results = []
    for name in names:
        print(f"reliability: {name} ...", flush=True)
        result = run_one(name, args.quick)
        for check in result.checks:
            mark = "ok  " if check.ok else "FAIL"
            print(f"  {mark} {check.name}" + (f": {check.detail}" if check.detail and not check.ok else ""), flush=True)
        results.append(result)
    print()
    print(table(results))
    failed = sum(r.failed for r in results)
    print(f"\n{sum(len(r.checks) for r in results)} checks, {failed} failed")
    if args.out:
        args.out.write_text(json.dumps({"quick": args.quick, "scenarios": [r.as_dict() for r in results]}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
