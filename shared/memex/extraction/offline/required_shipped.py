"""What the rule table's patterns require (required.py), read once and shipped beside this module in
required_shipped.json: reading all ~490 patterns costs about 1 s of CPU, which every process that extracts
(an extract worker, a `?wait=true` ingest, `make dev`'s first turn, a test) paid at its first extraction.

The file is trusted only as far as it provably applies. Each reading is filed under a digest of its
pattern's source (the table's patterns have no flags but those written in them), so a pattern changed
since is read at run time, and the whole file under a digest of required.py as it read them, so a changed
reading reads every pattern again. A changed table is still right, only slower to load, until the file is
written again:

    make required-words    (python -m memex.extraction.offline.required_shipped)

tests/test_required_shipped.py fails while the file differs from a fresh reading. A file that cannot be read
as the table (missing, cut short, another shape) is none: every pattern is read at run time, with a warning. Python 3.11, 3.12 and
3.13 read the table alike (checked when the file was first written), so the file holds no Python version.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path

from memex.extraction.offline import required as reader
from memex.extraction.offline.required import required
from memex.extraction.offline.rules import ASKED_RULES, RULES

FILE = Path(__file__).with_name("required_shipped.json")
log = logging.getLogger(__name__)


def key(source: str) -> str:
    return hashlib.blake2b(source.encode(), digest_size=16).hexdigest()


def reader_key() -> str:
    # Line endings as checked out (a CRLF checkout builds the same reader).
    return hashlib.blake2b(Path(reader.__file__).read_bytes().replace(b"\r\n", b"\n"), digest_size=16).hexdigest()


def fresh() -> dict:
    """The file's content, read now: what each pattern of the table requires."""
    sources = sorted({key(s): s for rule in [*RULES, *ASKED_RULES] for s in rule.patterns}.items())
    return {"reader": reader_key(),
            "required": {k: [sorted(words) for words in required(re.compile(s))] for k, s in sources}}


def shipped(path: Path = FILE) -> dict[str, list[frozenset[str]]]:
    """The readings in the file by pattern key; none when required.py has changed since they were read, or
    the file cannot be read as them (a sieve missing its table is slower to build, never wrong)."""
    try:
        content = json.loads(path.read_text())
        if content["reader"] != reader_key():
            log.warning("%s was read by another required.py: the patterns are read now (make required-words)", path)
            return {}
        return {k: [frozenset(_words(words)) for words in sets] for k, sets in content["required"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        log.warning("%s is not the table of required words (%r): the patterns are read now", path, error)
        return {}


def _words(words: object) -> list[str]:
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise TypeError(f"not a list of words: {words!r}")
    return words


def requires(source: str, readings: dict[str, list[frozenset[str]]]) -> list[frozenset[str]]:
    """What the pattern of `source` requires: as read in `readings` (shipped()), or read now when they lack it."""
    found = readings.get(key(source))
    return required(re.compile(source)) if found is None else found


def write(path: Path = FILE) -> None:
    content = fresh()
    # One pattern a line, so that a changed pattern is a changed line.
    lines = [f"  {json.dumps(k)}: {json.dumps(sets)}" for k, sets in content["required"].items()]
    text = f'{{"reader": {json.dumps(content["reader"])},\n "required": {{\n' + ",\n".join(lines) + "\n}}\n"
    # Whole or not at all: a write cut short would leave a table no process could read.
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


if __name__ == "__main__":
    write()
