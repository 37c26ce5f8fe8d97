"""Every key a search puts in a result's `score_parts` is declared: in /openapi.json (the server's
ScoreParts, each with a description), in the Python client's model, and in docs/retrieval.md's
account of them. The keys are read from the retrieval package's code, not from answers seen: a key a new rule
adds fails here until it is declared, whether or not some test's search reaches it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from memex_client import ScoreParts as ClientScoreParts
from memex_edge.answers import ScoreParts

ROOT = Path(__file__).resolve().parent.parent
RETRIEVAL = ROOT / "shared" / "memex" / "retrieval"
# The one place a part's key is named at run time, and the keys it can name: each channel's rank
# (search.py: f"{name}_rank" of the keyword and vector channels). A new one fails `test_the_walk_...`.
NAMED_AT_RUN_TIME = {("search.py", "detail[key]"): {"bm25_rank", "vector_rank"}}
# Keys the walk must find, so that it cannot pass by finding nothing.
KNOWN = {"score", "relevance", "recency", "importance", "bm25", "similarity", "rerank", "learned", "current_for",
         "ended", "past_for", "chain", "kind_order", "introduces", "below_theirs", "said_within", "repeat_of"}


def _is_parts(node: ast.Dict) -> bool:
    """Whether a dict display is a result's score parts: it spreads another's (`**parts`, an entry's
    `[2]`, `ScoreParts.as_dict()`) or holds a "score" beside no "score_parts" (a result holds both)."""
    keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
    if "score_parts" in keys:
        return False
    spread = [value for key, value in zip(node.keys, node.values) if key is None]
    return "score" in keys or any(
        (isinstance(v, ast.Name) and v.id == "parts")
        or (isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Constant) and v.slice.value == 2)
        or (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "as_dict")
        for v in spread)


def _walk() -> tuple[set[str], set[tuple[str, str]]]:
    """The keys retrieval's code puts in score parts, and where it names one at run time (module,
    source): the keys of score-parts dict displays, and those assigned to a dict made by
    `as_dict()` (`detail["bm25"] = ...`)."""
    keys: set[str] = set()
    dynamic: set[tuple[str, str]] = set()
    for path in sorted(RETRIEVAL.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and _is_parts(node):
                for key in node.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        keys.add(key.value)
                    elif key is not None:
                        dynamic.add((path.name, ast.unparse(key)))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                made = {target.id for sub in ast.walk(node) if isinstance(sub, ast.Assign)
                        and isinstance(sub.value, ast.Call) and isinstance(sub.value.func, ast.Attribute)
                        and sub.value.func.attr == "as_dict"
                        for target in sub.targets if isinstance(target, ast.Name)}
                for sub in ast.walk(node):
                    if not isinstance(sub, ast.Assign):
                        continue
                    for target in sub.targets:
                        for one in (target.elts if isinstance(target, ast.Tuple) else [target]):
                            if isinstance(one, ast.Subscript) and isinstance(one.value, ast.Name) \
                                    and one.value.id in made:
                                if isinstance(one.slice, ast.Constant):
                                    keys.add(one.slice.value)
                                else:
                                    dynamic.add((path.name, ast.unparse(one)))
    return keys, dynamic


@pytest.fixture(scope="module")
def emitted() -> set[str]:
    keys, dynamic = _walk()
    assert dynamic == set(NAMED_AT_RUN_TIME), f"a score part named at run time: add it to NAMED_AT_RUN_TIME: {dynamic}"
    return keys | set().union(*NAMED_AT_RUN_TIME.values())


def test_the_walk_finds_the_keys_retrieval_puts_in_score_parts(emitted):
    assert KNOWN <= emitted, KNOWN - emitted


def test_the_walk_would_see_a_new_key():
    """The walk can fail: a rule that adds a key, as the modules write one, is found."""
    added = ast.parse('def lift(parts, score):\n    return {**parts, "score": score, "moved_by": "x"}')
    found = {key.value for node in ast.walk(added) if isinstance(node, ast.Dict) and _is_parts(node)
             for key in node.keys if isinstance(key, ast.Constant)}
    assert "moved_by" in found
    result = ast.parse('r = {**read[item], "score": score, "score_parts": parts}')
    assert not any(_is_parts(node) for node in ast.walk(result) if isinstance(node, ast.Dict))


def test_every_key_is_in_the_openapi_document_with_a_description(http, emitted):
    schema = http.get("/openapi.json").json()["components"]["schemas"]["ScoreParts"]
    declared = schema["properties"]
    assert emitted - set(declared) == set(), "undeclared in memex_edge.answers.ScoreParts"
    assert set(declared) - emitted == set(), "declared, yet no part of retrieval puts it in"
    assert [key for key, field in declared.items() if not field.get("description")] == []
    assert set(ScoreParts.model_fields) == emitted


def test_the_client_model_declares_every_key(emitted):
    assert set(ClientScoreParts.model_fields) == emitted


def test_the_retrieval_document_names_every_key(emitted):
    """docs/retrieval.md's account of a result's score parts names each key."""
    retrieval = (ROOT / "docs/retrieval.md").read_text()
    start = retrieval.index("Each result reports its\n`score_parts`")
    account = retrieval[start:retrieval.index("\n\n", start)]
    assert {key for key in emitted if not re.search(rf"`{key}`", account)} == set()
