"""The offline summary: the group's lines, oldest first, without those that add no word.

Nothing is paraphrased, so every name, date and number a line held is still there to be found by
keyword or by meaning; a line whose words all appear in the lines kept before it (a repetition)
is left out.
"""

from __future__ import annotations

from memex.consolidation import Summary
from memex.consolidation.grouping import words


class ExtractiveSummariser:
    def summarise(self, lines: list[str]) -> Summary:
        kept: list[str] = []
        seen: set[str] = set()
        for line in lines:
            said = words(line)
            if kept and said <= seen:
                continue
            kept.append(line.strip())
            seen |= said
        return Summary("\n".join(kept), "extractive")
