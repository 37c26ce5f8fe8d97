"""The offline extractor's CPU time per MB of one message, per shape of message, and another checkout's in the same run.

    python -m bench.extractor_speed [--mb 1] [--rounds 2] [--against OTHER_CHECKOUT] [--data LOCOMO.json]

A turn's message may be a paste of any size (the API takes a message up to its body limit), and the
worker, or `?wait=true` inline, extracts it in one go. Each shape is one user message of --mb MB,
built here, deterministically:
  - repeated: one sentence said over and over ("I like hiking in the mountains with my friends. ");
  - prose: chat lines no two alike, statements the rules read (a job, a city, a pet, a plan, a
    sister's name) among small talk and questions;
  - list: a list, one short item a line;
  - log: log lines, a timestamp and numbers each;
  - code: source code, indented, no two lines alike;
  - locomo (with --data, a LoCoMo file): its lines, one a line, in order, from the start again until
    the size is reached (so later lines repeat earlier ones).
Each checkout's extractor runs in a child process with that checkout's code first on the path (this
file run by path, as bench.locomo_candidates does), which extracts each shape twice, the second time
timed by time.process_time (the first loads the rules and compiles the patterns the shape may match). Rounds alternate the checkouts; a shape's
figure is the best of its rounds. On a shared machine the absolute times move with the load: read
the ratios of one run (this checkout's time over the other's).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

MB = 1_000_000
REPEATED = "I like hiking in the mountains with my friends. "


def _prose(rng: random.Random, size: int) -> str:
    names = ["Ana", "Ben", "Chloe", "Dev", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luis"]
    places = ["Lisbon", "Berlin", "Denver", "Osaka", "Leeds", "Austin", "Porto", "Dublin", "Quito", "Perth"]
    employers = ["Stripe", "Notion", "Spotify", "Shopify", "Deloitte", "Pfizer", "Airbnb", "Siemens"]
    things = ["a new bike", "the garden", "my thesis", "the kitchen", "a road trip", "the recital", "sourdough"]
    lines = [
        "I work at {employer} as a designer.", "I moved to {place} last {n} months ago.",
        "My sister {name} lives in {place}.", "We adopted a dog named {name} in {n}0 days.",
        "I'm planning a trip to {place} next month.", "Honestly the weather in {place} was wild on day {n}.",
        "Did you ever finish {thing}?", "haha that's so true, {name} said the same thing {n} times",
        "I spent {n} hours on {thing} this weekend and it was worth it.", "What do you think about {place}?",
        "{name} and I watched a movie about {place} yesterday.", "I've been learning to cook {thing} for {n} weeks.",
    ]
    said, i, length = [], 0, 0
    while length < size:
        line = rng.choice(lines).format(employer=rng.choice(employers), place=rng.choice(places),
                                        name=rng.choice(names), thing=rng.choice(things), n=rng.randint(2, 99))
        said.append(f"[{i}] {line}")  # numbered as a chat export is: no two alike
        i, length = i + 1, length + len(said[-1]) + 1
    return " ".join(said)


def _list(rng: random.Random, size: int) -> str:
    items = ["milk", "eggs", "bread", "apples", "rice", "olive oil", "coffee beans", "tomatoes", "cheddar"]
    return "".join(f"- {rng.choice(items)} x{rng.randint(1, 9)} (item {i})\n" for i in range(size // 10))


def _log(rng: random.Random, size: int) -> str:
    levels = ["INFO", "WARN", "DEBUG", "ERROR"]
    return "".join(f"2024-05-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                   f"{rng.randint(0, 59):02d} {rng.choice(levels)} worker[{rng.randint(1, 999)}]: processed job {i} "
                   f"in {rng.randint(1, 900)} ms, queue depth {rng.randint(0, 50)}.\n" for i in range(size // 40))


def _code(rng: random.Random, size: int) -> str:
    verbs = ["load", "save", "parse", "render", "fetch", "merge", "split", "check"]
    nouns = ["user", "order", "token", "page", "event", "batch", "record", "config"]
    lines = []
    for i in range(size // 100):
        verb, noun = rng.choice(verbs), rng.choice(nouns)
        lines += [f"def {verb}_{noun}_{i}(self, {noun}, limit={rng.randint(1, 99)}):",
                  f"    # {verb} the {noun} unless it is over the limit",
                  f"    if len({noun}) > limit: return None",
                  f"    return self.{verb}({noun}[:limit]).get('{noun}_{i}')"]
    return "\n".join(lines)


def _locomo(data: Path) -> str:
    from bench import locomo

    lines = [locomo.message_of(turn)["content"] for sample in json.loads(data.read_text())
             for _, dialog, _ in locomo.sessions(sample["conversation"]) for turn in dialog]
    return "\n".join(lines)


def shapes(size: int, data: Path | None = None) -> dict[str, str]:
    """Each shape's message, `size` characters long."""
    rng = random.Random(7)
    made = {"repeated": REPEATED * (size // len(REPEATED) + 1), "prose": _prose(rng, size), "list": _list(rng, size),
            "log": _log(rng, size), "code": _code(rng, size)}
    if data is not None:
        made["locomo"] = _locomo(data)
    return {name: (text * (size // len(text) + 1))[:size] for name, text in made.items()}


def timed(messages: dict[str, str]) -> dict[str, dict[str, float]]:
    """CPU seconds and candidates of each message, as the single user message of a turn, by the offline
    extractor on the path."""
    from memex.extraction.offline import OfflineExtractor

    extractor = OfflineExtractor()
    found = {}
    for name, text in messages.items():
        message = [{"id": "m1", "role": "user", "content": text}]
        # Untimed: the rules load, and the patterns the message may match compile (each at its first use,
        # rule.Rule), a cost a process pays once, not per MB.
        extractor.extract(message, [])
        started = time.process_time()
        candidates = extractor.extract(message, [])
        found[name] = {"seconds": time.process_time() - started, "candidates": len(candidates)}
    return found


def timed_in(checkout: Path, messages: dict[str, str]) -> dict[str, dict[str, float]]:
    """timed() run by a child process with `checkout`'s code first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    env["PYTHONPATH"] = os.pathsep.join([str(checkout), str(checkout / "shared")])
    code = f"import runpy; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", code, "--child"], cwd=checkout, env=env, check=True,
                          input=json.dumps(messages), stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="each message's size, in MB (10^6 characters)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each checkout, alternating; the best counts")
    parser.add_argument("--against", type=Path, help="another checkout, timed in the same run")
    parser.add_argument("--data", type=Path, help="a LoCoMo JSON file, for the locomo shape")
    args = parser.parse_args(argv)

    messages = shapes(int(args.mb * MB), args.data)
    here = Path(__file__).resolve().parent.parent
    checkouts = [here] + ([args.against.resolve()] if args.against else [])
    best: dict[Path, dict[str, dict[str, float]]] = {c: {} for c in checkouts}
    for _ in range(args.rounds):
        for checkout in checkouts:
            for name, run in timed_in(checkout, messages).items():
                if name not in best[checkout] or run["seconds"] < best[checkout][name]["seconds"]:
                    best[checkout][name] = run
    report: dict[str, Any] = {"mb": args.mb, "shapes": {}}
    header = f"{'shape':<10} {'s/MB':>7} {'found':>6}"
    if args.against:
        header += f" {'other s/MB':>11} {'found':>6} {'ratio':>6}"
    print(header)
    for name in messages:
        ours = best[here][name]
        row = {"seconds_per_mb": ours["seconds"] / args.mb, "candidates": ours["candidates"]}
        line = f"{name:<10} {row['seconds_per_mb']:>7.2f} {ours['candidates']:>6}"
        if args.against:
            theirs = best[args.against.resolve()][name]
            row.update(other_seconds_per_mb=theirs["seconds"] / args.mb, other_candidates=theirs["candidates"],
                       ratio=ours["seconds"] / theirs["seconds"] if theirs["seconds"] else None)
            line += f" {row['other_seconds_per_mb']:>11.2f} {theirs['candidates']:>6} {row['ratio']:>5.2f}x"
        report["shapes"][name] = row
        print(line)
    return report


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        json.dump(timed(json.load(sys.stdin)), sys.stdout)
    else:
        main()
