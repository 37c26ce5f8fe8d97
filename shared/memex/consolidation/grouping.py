"""Which episodic memories belong together: near-duplicates by their words, same-topic by meaning.

Pure: no database. Groups are formed around a leader (the oldest line of the group): a line joins
the first group whose leader it resembles, so a group never drifts from its first line through a
chain of small steps, as transitive closure would let it. A line saying its group's first line
again joins it whatever the group's size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def said(text: str) -> tuple[str, ...]:
    """A line's words in order, case and punctuation aside: two lines saying the same."""
    return tuple(w.lower() for w in _WORD.findall(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class Rules:
    jaccard: float          # word-set overlap that makes two lines near-duplicates
    similarity: float       # cosine that makes them same-topic; 0: not used
    max_group: int          # lines per summary, at most (repetitions of its first line aside)


def group(contents: Sequence[str], vectors: np.ndarray | None, rules: Rules) -> list[list[int]]:
    """Indexes of `contents` (oldest first) in groups of two or more, each group oldest first.
    `vectors` (one row per content) is needed only when `rules.similarity` is set."""
    sets = [words(c) for c in contents]
    cosine = None
    if rules.similarity > 0 and vectors is not None and len(contents):
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        cosine = unit @ unit.T
    same_as = [said(c) for c in contents]
    groups: list[list[int]] = []
    # A leader's words, in order, to its group. A line saying exactly its words (case and punctuation
    # aside) joins it past `max_group`: the cap keeps a summary from blurring lines that differ, and
    # these do not, so "Noted." said 133 times is one summary citing every time, not 44 alike.
    same: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(contents)):
        if same_as[i] in same:
            same[same_as[i]].append(i)
            continue
        for members in groups:
            leader = members[0]
            if len(members) < rules.max_group and (
                    jaccard(sets[i], sets[leader]) >= rules.jaccard
                    or (cosine is not None and cosine[i, leader] >= rules.similarity)):
                members.append(i)
                break
        else:
            groups.append([i])
            if same_as[i]:  # lines without a word ("👍", "🙏") are not the same line
                same[same_as[i]] = groups[-1]
    return [members for members in groups if len(members) > 1]
