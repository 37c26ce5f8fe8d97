"""bench.locomo_candidates: the offline extractor over a LoCoMo-shaped file, counted and compared
with another checkout's extractor run in a child process."""

import json
import shutil
from pathlib import Path

from bench import locomo_candidates
from tests.conftest import ROOT


# LoCoMo's shape, written here (the dataset is not the repository's to copy).
SAMPLE = {"sample_id": "conv-x", "qa": [], "conversation": {
    "speaker_a": "Ana", "speaker_b": "Ben", "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I live in Berlin."},
                  {"speaker": "Ben", "dia_id": "D1:2", "text": "My dog is called Rex."},
                  {"speaker": "Ana", "dia_id": "D1:3", "text": "Nice weather today."}]}}


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([SAMPLE]))
    return path


def test_counts_each_speakers_candidates_and_writes_them(tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    report = locomo_candidates.main(["--data", str(_data(tmp_path)), "--out", str(out)])
    assert report == {"lines": 3, "candidates": 2}
    assert "2 candidates from 3 lines" in capsys.readouterr().out
    found = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(c["line"], c["subject"], c["key"], c["value"]) for c in found] == [
        ("D1:1", "user", "city", "Berlin"), ("D1:2", "Ben", "ben_pet_dog_name", "Rex")]


def test_against_another_checkout_prints_what_only_each_finds(tmp_path, capsys):
    # Another checkout: this one's code, whose extractor no longer reads where anyone lives.
    other = tmp_path / "other"
    shutil.copytree(ROOT / "shared", other / "shared", ignore=shutil.ignore_patterns("__pycache__"))
    offline = other / "shared" / "memex" / "extraction" / "offline" / "extractor.py"
    offline.write_text(offline.read_text() + "\n\n_read = OfflineExtractor.extract\n"
                       "OfflineExtractor.extract = lambda self, m, h: [c for c in _read(self, m, h) if c.key != 'city']\n")
    report = locomo_candidates.main(["--data", str(_data(tmp_path)), "--against", str(other)])
    assert (report["candidates"], report["against"]) == (2, 1)
    [only_here] = report["diff"]
    assert only_here.startswith("+ ") and json.loads(only_here[2:])["value"] == "Berlin"
    printed = capsys.readouterr().out
    assert f"{other}: 1 candidates; 1 differ" in printed and only_here in printed

    # Against itself: nothing differs.
    assert locomo_candidates.main(["--data", str(_data(tmp_path)), "--against", str(ROOT)])["diff"] == []
