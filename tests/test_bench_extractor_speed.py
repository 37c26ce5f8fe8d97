"""bench.extractor_speed: each shape of message timed by this checkout's extractor and another's, in
child processes, and the ratio between them."""

import os
import subprocess
import sys

from bench import extractor_speed
from tests.conftest import ROOT


def test_each_shape_is_its_size_and_no_two_prose_lines_alike():
    made = extractor_speed.shapes(20_000)
    assert set(made) == {"repeated", "prose", "list", "log", "code"}
    assert all(len(text) == 20_000 for text in made.values())
    lines = made["prose"].split("] ")[1:-1]
    assert len(set(lines)) == len(lines)


def test_against_another_checkout_times_both_and_finds_the_same(capsys):
    report = extractor_speed.main(["--mb", "0.01", "--rounds", "1", "--against", str(ROOT)])
    assert set(report["shapes"]) == {"repeated", "prose", "list", "log", "code"}
    for row in report["shapes"].values():
        assert row["seconds_per_mb"] > 0 and row["ratio"] > 0
        assert row["candidates"] == row["other_candidates"]
    assert report["shapes"]["prose"]["candidates"] > 0
    printed = capsys.readouterr().out
    assert "ratio" in printed and "prose" in printed


def test_no_pattern_is_compiled_while_a_shape_is_timed():
    # The rules' patterns compile at their first use (rule.Rule): once a process, not per MB.
    code = ("import re, time; events = []; compile, clock = re.compile, time.process_time; "
            "re.compile = lambda source, flags=0: events.append('c') or compile(source, flags); "
            "time.process_time = lambda: events.append('t') or clock(); "
            "from bench import extractor_speed; extractor_speed.timed(extractor_speed.shapes(20_000)); "
            "timed = ''.join(events).split('t')[1::2]; print(len(timed), sum(map(len, timed)))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    assert out == "5 0\n"  # five shapes timed, no compile between a start and its stop
