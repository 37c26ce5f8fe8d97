"""What the rule table's patterns require (required.py), read once and shipped beside this module in
required_shipped.json: reading all ~490 patterns costs about 1 s of CPU, which every process that extracts
(an extract worker, a `?wait=true` ingest, `make dev`'s first turn, a test) paid at its first extraction.

The file is trusted only as far as it provably applies. Each reading is filed under a digest of its
pattern's source (the table's patterns have no flags but those written in them), so a pattern changed
since is read at run time, and the whole file under a digest of required.py as it read them, so a changed
reading reads every pattern again. A changed table is still right, only slower to load, until the file is
written again:

    make required-words    (python -m memex.extraction.offline.required_shipped)

tests/test_required_words.py fails while the file differs from a fresh reading. Python 3.11, 3.12 and
3.13 read the table alike (checked when the file was first written), so the file holds no Python version.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from memex.extraction.offline import required as reader
from memex.extraction.offline.required import required
from memex.extraction.offline.rules import ASKED_RULES, RULES

FILE = Path(__file__).with_name("required_shipped.json")


def key(source: str) -> str:
    return hashlib.blake2b(source.encode(), digest_size=16).hexdigest()


def reader_key() -> str:
    return hashlib.blake2b(Path(reader.__file__).read_bytes(), digest_size=16).hexdigest()


def fresh() -> dict:
    """The file's content, read now: what each pattern of the table requires."""
    sources = sorted({key(s): s for rule in [*RULES, *ASKED_RULES] for s in rule.patterns}.items())
    return {"reader": reader_key(),
            "required": {k: [sorted(words) for words in required(re.compile(s))] for k, s in sources}}


def shipped(path: Path = FILE) -> dict[str, list[frozenset[str]]]:
    """The readings in the file by pattern key; none when required.py has changed since they were read."""
    content = json.loads(path.read_text())
    if content["reader"] != reader_key():
        return {}
    return {k: [frozenset(words) for words in sets] for k, sets in content["required"].items()}


def requires(source: str, readings: dict[str, list[frozenset[str]]]) -> list[frozenset[str]]:
    """What the pattern of `source` requires: as read in `readings` (shipped()), or read now when they lack it."""
    found = readings.get(key(source))
    return required(re.compile(source)) if found is None else found


def write(path: Path = FILE) -> None:
    content = fresh()
    # One pattern a line, so that a changed pattern is a changed line.
    lines = [f"  {json.dumps(k)}: {json.dumps(sets)}" for k, sets in content["required"].items()]
    path.write_text(f'{{"reader": {json.dumps(content["reader"])},\n "required": {{\n' + ",\n".join(lines) + "\n}}\n")


if __name__ == "__main__":
    write()
