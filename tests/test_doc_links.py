"""Every relative link of README.md and docs/**/*.md resolves: the file it names exists and, with a
`#anchor`, that file has the heading GitHub gives that anchor. Sections move between documents; a
link left pointing at the old place is found here, not by a reader."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             ROOT / "clients/python/README.md", ROOT / "infra/localstack/README.md"]
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text a reader sees as Markdown: code blocks and code spans hold no links."""
    return CODE.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", CODE.sub(lambda m: m[0].strip("`"), heading).strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slug = _slug(heading[1])
            found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")  # GitHub numbers a repeat
            seen[slug] = seen.get(slug, 0) + 1
    return found


def broken_links() -> list[str]:
    broken = []
    for document in DOCUMENTS:
        for target in LINK.findall(_prose(document.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            linked = (document.parent / path).resolve() if path else document
            where = f"{document.relative_to(ROOT)}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{where} (no such heading)")
    return broken


def test_the_anchor_of_a_heading_is_githubs():
    assert _slug("An agent and one user: bench.probes") == "an-agent-and-one-user-benchprobes"
    assert _slug("API (v1)") == "api-v1"
    assert _slug("Hybrid p50 ≤ 1.5× the floor") == "hybrid-p50--15-the-floor"


def test_every_relative_link_of_the_documentation_resolves():
    assert len(DOCUMENTS) > 2
    assert broken_links() == []
