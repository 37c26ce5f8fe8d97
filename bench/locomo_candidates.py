"""The offline extractor over every LoCoMo line: how many candidates, and what another checkout finds differently.

    python -m bench.locomo_candidates --data ../shared/bench/locomo-dev.json [--out F.jsonl] \\
        [--against OTHER_CHECKOUT]

Each line of each conversation, in session order, is extracted alone, as the single message of a
turn, with the conversation's six lines before it (across sessions) as history, and the speaker as
the service sets it (models.speaker_subject: the first speaker is the user, the second a named
participant). No database, embedder or server: a change to the offline rules is checked against
LoCoMo in seconds, where a kept ingest (bench.locomo --keep) takes minutes to remake.

It prints the number of candidates; --out writes them, one JSON line each (conversation, line,
subject, key, value, historical). With --against, the same lines go to a child process with the
other checkout's code first on the path (this file run by path: the other checkout may have no
copy of it), and the candidates only it finds are printed with "-", those only this checkout finds
with "+".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, Sequence

HISTORY = 6


def lines(samples: Sequence[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(conversation, message, history) of every line, as the extractor is given them."""
    from bench import locomo
    from memex.models import speaker_subject

    for sample in samples:
        user_name = sample["conversation"]["speaker_a"]
        said: list[dict[str, Any]] = []
        for _, dialog, _ in locomo.sessions(sample["conversation"]):
            for turn in dialog:
                message = locomo.message_of(turn)
                message.update(id=turn["dia_id"], subject=speaker_subject("user", message["name"], user_name))
                yield sample["sample_id"], message, said[-HISTORY:]
                said.append(message)


def extract(work: Sequence[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The candidates of every line, by the offline extractor on the path."""
    from memex.extraction.offline import OfflineExtractor

    extractor = OfflineExtractor()
    found = []
    for conversation, message, history in work:
        for c in extractor.extract([message], history):
            found.append({"conversation": conversation, "line": c.source_message_id, "subject": c.subject,
                          "key": c.key, "value": c.value, "historical": c.historical})
    return found


def extract_in(checkout: Path, work: Sequence[Any]) -> list[dict[str, Any]]:
    """extract() run by a child process with `checkout`'s code first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    env["PYTHONPATH"] = os.pathsep.join([str(checkout), str(checkout / "shared")])
    code = f"import runpy; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", code, "--child"], cwd=checkout, env=env, check=True,
                          input=json.dumps(work), stdout=subprocess.PIPE, text=True)  # its errors on ours
    return json.loads(done.stdout)


def diff(theirs: Sequence[dict[str, Any]], ours: Sequence[dict[str, Any]]) -> list[str]:
    """'- ' each candidate only `theirs` has, '+ ' each only `ours` has (counted: a repeat counts)."""
    def counted(found):
        return Counter(json.dumps(c, sort_keys=True) for c in found)

    a, b = counted(theirs), counted(ours)
    return sorted([f"- {c}" for c in (a - b).elements()] + [f"+ {c}" for c in (b - a).elements()],
                  key=lambda line: (line[2:], line[0]))


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo JSON file")
    parser.add_argument("--out", type=Path, help="write the candidates here, one JSON line each")
    parser.add_argument("--against", type=Path, help="another checkout, whose extractor's candidates are compared")
    args = parser.parse_args(argv)

    work = list(lines(json.loads(args.data.read_text())))
    ours = extract(work)
    if args.out:
        args.out.write_text("".join(json.dumps(c) + "\n" for c in ours))
    print(f"{len(ours)} candidates from {len(work)} lines")
    report: dict[str, Any] = {"lines": len(work), "candidates": len(ours)}
    if args.against:
        theirs = extract_in(args.against.resolve(), work)
        changed = diff(theirs, ours)
        print(f"{args.against}: {len(theirs)} candidates; {len(changed)} differ")
        for line in changed:
            print(line)
        report.update(against=len(theirs), diff=changed)
    return report


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        json.dump(extract(json.load(sys.stdin)), sys.stdout)
    else:
        main()
