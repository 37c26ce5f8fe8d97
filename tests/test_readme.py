"""The README says what the code and the template say: every setting config.py reads is in its
Configuration table by its whole name, and every function it or a topic document under docs/ names is
one of template.yaml's; and no document keeps a merge's conflict markers."""

from __future__ import annotations

import re

from infra import template
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
TOPICS = sorted((ROOT / "docs").glob("*.md"))  # the run records under docs/measurements name past names


def _whole(name: str, text: str) -> bool:
    return re.search(rf"(?<![A-Z0-9_]){name}(?![A-Z0-9_])", text) is not None


def test_every_setting_config_reads_is_in_the_configuration_table_by_its_whole_name():
    # A name shortened to `_HITS` after another is found by neither a search for it nor grep.
    read = set(re.findall(r'"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"', (ROOT / "shared/memex/config.py").read_text()))
    assert {"MEMEX_SEARCH_NEIGHBOUR_HITS", "MEMEX_VECTOR_PRESELECT_ABOVE", "DATABASE_URL"} <= read  # the reading works
    table = README.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    assert sorted(name for name in read if not _whole(name, table)) == []


def test_every_function_the_documentation_names_is_a_function_of_the_template():
    resources = template.load()["Resources"]
    functions = {name for name, resource in resources.items() if resource["Type"] == "AWS::Serverless::Function"}
    assert TOPICS
    for document, text in [("README.md", README), *((path.name, path.read_text(encoding="utf-8")) for path in TOPICS)]:
        named = set(re.findall(r"\b[A-Z][A-Za-z]*(?:Fn|Function)\b", text))
        assert sorted(named - functions) == [], document
    assert {"IngestFunction", "ConsolidateFunction", "MigrateFunction"} <= set(re.findall(r"\b\w+Function\b", README))


def test_no_document_keeps_a_merge_conflict_marker():
    # Four merges once left `<<<<<<< HEAD` blocks in docs/measurements: a record read as two halves.
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    marked = [f"{path.relative_to(ROOT)}:{number}" for path in documents
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if re.match(r"(?:<{7}|>{7}) |={7}$", line)]
    assert marked == []
