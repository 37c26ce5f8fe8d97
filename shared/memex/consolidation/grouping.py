"""Which episodic memories belong together: near-duplicates by their words, same-topic by meaning,
and the same line said again, batch after batch.

Pure: no database. Groups are formed around a leader (the oldest line of the group): a line joins
the first group whose leader it resembles, so a group never drifts from its first line through a
chain of small steps, as transitive closure would let it. A line saying its group's first line
again joins it whatever the group's size. `Grouper` groups a user's lines a batch at a time and holds
the lines that say one thing alone across batches, so that a line said in every batch is one group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

import numpy as np

_WORD = re.compile(r"\w+")

Said = tuple[str, ...]
T = TypeVar("T")


def words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def said(text: str) -> Said:
    """A line's words in order, case and punctuation aside: two lines saying the same."""
    return tuple(w.lower() for w in _WORD.findall(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def gist(lines: Sequence[str]) -> frozenset[Said] | None:
    """What a group says: its lines' words, each line once. Two groups of one gist say the same thing
    (a summary of one serves the other). None when a line has no word ("👍"): such lines are never the
    same line."""
    return _gist_of(said(line) for line in lines)


def _gist_of(keys) -> frozenset[Said] | None:
    """gist() of lines whose said() the caller has."""
    keys = frozenset(keys)
    return None if () in keys else keys


@dataclass(frozen=True)
class Rules:
    jaccard: float          # word-set overlap that makes two lines near-duplicates
    similarity: float       # cosine that makes them same-topic; 0: not used
    max_group: int          # lines per summary, at most (repetitions of its first line aside)


def group(contents: Sequence[str], vectors: Sequence[np.ndarray] | None, rules: Rules,
          keys: Sequence[Said] | None = None) -> list[list[int]]:
    """Indexes of `contents` (oldest first) in groups of two or more, each group oldest first.
    `vectors` (one per content) are needed only when `rules.similarity` is set; `keys`, each
    content's said(), when the caller has them already."""
    sets = [words(c) for c in contents]
    compare = rules.similarity > 0 and vectors is not None
    # The leaders' unit vectors, one row a group: a line is compared with the leaders only, so this
    # holds as many rows as there are groups (a batch's every pair would be its size squared).
    leaders = np.empty((len(contents), len(vectors[0]) if compare and len(contents) else 0), dtype=np.float32)
    same_as = list(keys) if keys is not None else [said(c) for c in contents]
    groups: list[list[int]] = []
    # A line's words, in order, to the group it is in. A line saying exactly a line of a group (case
    # and punctuation aside) joins it past `max_group`: the cap keeps a summary from blurring lines that
    # differ, and these do not, so "Noted." said 133 times is one summary citing every time, not 44
    # alike, and a line of a mixed group said again is not a summary of its own beside it.
    same: dict[Said, list[int]] = {}
    for i in range(len(contents)):
        if same_as[i] in same:
            same[same_as[i]].append(i)
            continue
        unit = _unit(vectors[i]) if compare else None
        cosines = leaders[:len(groups)] @ unit if unit is not None and groups else None
        for g, members in enumerate(groups):
            leader = members[0]
            if len(members) < rules.max_group and (
                    jaccard(sets[i], sets[leader]) >= rules.jaccard
                    or (cosines is not None and cosines[g] >= rules.similarity)):
                members.append(i)
                break
        else:
            groups.append([i])
            if unit is not None:
                leaders[len(groups) - 1] = unit
            members = groups[-1]
        if same_as[i]:  # lines without a word ("👍", "🙏") are not the same line
            same[same_as[i]] = members
    return [members for members in groups if len(members) > 1]


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


@dataclass
class Group(Generic[T]):
    lines: list[str]                # what it says: each line once (its first saying), oldest first
    members: list[T]                # every line of it, as the caller gave them
    gist: frozenset[Said] | None    # gist(lines)


class Grouper(Generic[T]):
    """A user's lines grouped a batch at a time, oldest first. A batch's groups of lines that differ
    are returned at once; a line that says one thing alone (said once, or again and again and in no
    group with another line) is held by its words, later batches' lines saying it join it, and
    `held()` gives them once every batch is read: a line said in every batch is one group."""

    def __init__(self, rules: Rules):
        self.rules = rules
        # its words -> its first saying's text (the one line a summary of it needs) and every saying
        self._held: dict[Said, tuple[str, list[T]]] = {}

    def add(self, items: Sequence[T], contents: Sequence[str],
            vectors: Sequence[np.ndarray] | None) -> list[Group[T]]:
        """This batch's groups of two lines or more that differ; `items` are what the groups hold, one
        per content (of which, once grouped, only the first saying of a held line is kept)."""
        keys = [said(c) for c in contents]
        fresh = []
        for i, key in enumerate(keys):
            if key in self._held:
                self._held[key][1].append(items[i])
            else:
                fresh.append(i)
        grouped = group([contents[i] for i in fresh], [vectors[i] for i in fresh] if vectors is not None else None,
                        self.rules, [keys[i] for i in fresh])
        alone = set(range(len(fresh))) - {j for members in grouped for j in members}
        differ = []
        for members in [*grouped, *([j] for j in sorted(alone))]:
            indexes = [fresh[j] for j in members]
            one = {keys[i] for i in indexes}
            if len(one) == 1 and () not in one:
                self._held[keys[indexes[0]]] = (contents[indexes[0]], [items[i] for i in indexes])
            elif len(indexes) > 1:
                lines = _distinct([contents[i] for i in indexes], [keys[i] for i in indexes])
                differ.append(Group(lines, [items[i] for i in indexes], _gist_of(keys[i] for i in indexes)))
        return differ

    def held(self) -> list[Group[T]]:
        """The lines that each say one thing alone, one group a thing (of one line or more)."""
        return [Group([line], members, frozenset([key])) for key, (line, members) in self._held.items()]


def _distinct(lines: list[str], keys: list[Said]) -> list[str]:
    """Each line once, its first saying (lines without a word each count): a summary of a line said
    many times asks the model about it once, and the extractive summary would drop the repetitions anyway."""
    seen: set[Said] = set()
    kept = []
    for line, key in zip(lines, keys):
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    return kept
