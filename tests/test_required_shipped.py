"""The shipped reading of what the table's patterns require (extraction/offline/required_shipped.py) is
what required.py reads now, and is used only where it provably applies."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memex.extraction.offline.required import required
from memex.extraction.offline.required_shipped import FILE, fresh, key, requires, shipped
from memex.extraction.offline.rules import RULES

_ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_file_is_a_fresh_reading_of_the_table():
    # When this fails, the table or required.py changed: `make required-words` writes the file again.
    assert json.loads(FILE.read_text()) == fresh()


def test_every_pattern_of_the_table_is_found_in_the_file_whatever_the_hash_seed():
    # A pattern made from a set in its iteration order has another source, so another key, in each process,
    # and would be read at every start.
    code = ("from memex.extraction.offline.required_shipped import key, shipped; "
            "from memex.extraction.offline.rules import ASKED_RULES, RULES; "
            "readings = shipped(); "
            "print(sum(key(p) not in readings for rule in [*RULES, *ASKED_RULES] for p in rule.patterns))")
    env = {**os.environ, "PYTHONPATH": str(_ROOT / "shared")}
    unfound = {subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONHASHSEED": str(seed)}, check=True,
                              capture_output=True, text=True).stdout for seed in (1, 2)}
    assert unfound == {"0\n"}


def test_a_pattern_is_read_from_the_file_and_one_it_lacks_is_read_now():
    readings = shipped()
    source = RULES[0].patterns[0]
    assert requires(source, readings) == readings[key(source)] == required(re.compile(source))
    assert requires(source, {key(source): [frozenset({"filed"})]}) == [frozenset({"filed"})]
    changed = source + "(?: at last)?"
    assert key(changed) not in readings
    assert requires(changed, readings) == required(re.compile(changed))


def test_a_file_read_by_another_required_py_is_not_trusted(tmp_path):
    content = json.loads(FILE.read_text())
    assert shipped()  # read by this one: trusted
    stale = tmp_path / "required_shipped.json"
    stale.write_text(json.dumps({**content, "reader": "0" * 32}))
    assert shipped(stale) == {}


@pytest.mark.parametrize("text", [None, "", '{"reader": "', '{"required": {}}', '[1, 2]',
                                  '{"reader": "READER", "required": []}',
                                  '{"reader": "READER", "required": {"k": [[1]]}}',
                                  '{"reader": "READER", "required": {"k": ["moved"]}}'],
                         ids=["missing", "empty", "cut short", "no reader", "a list", "readings a list",
                              "a word a number", "words a string"])
def test_a_file_that_is_not_the_table_is_none_and_the_patterns_are_read_now(tmp_path, text):
    # A sieve without its table is slower to build, never wrong; an exception here would fail every extraction.
    from memex.extraction.offline.required_shipped import reader_key

    path = tmp_path / "required_shipped.json"
    if text is not None:
        path.write_text(text.replace("READER", reader_key()))
    assert shipped(path) == {}
