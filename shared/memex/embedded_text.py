"""The text a memory's vector is computed from, at every place a memory is embedded (the pipeline,
a memory written directly, consolidation, the re-embed backfill, erasure's re-embed). What is
stored and returned is the memory's content, unchanged; only its vector reads this text.

- A memory with a context (a message that leans on the line before it, pipeline._leans_on) is
  embedded after that line: "Two of them." means nothing alone.
- A fact about the user (not episodic, subject "user") is embedded in the user's own voice:
  "The user's employer is Notion." as "My employer is Notion.". Every fact memex files about the
  user starts with the same phrase, and to all-MiniLM-L6-v2 a shared phrase is most of what two
  short sentences have in common: a question about "the user" was at cosine 0.2-0.5 from every
  fact ("Where does the user work?" 0.49 from "The user lives in Leeds.", 0.45 from the employer
  fact; "Is the user a runner?" 0.35 from the employer fact, the floor's gate), and a question in
  the first person passed them by ("Where do I work now?" 0.19 from the employer fact). Written as
  the user's messages are, and as a question about the user is searched (first_person.py
  rewrites both), the employer fact is 0.32 from "Where do I work now?" and 0.07 from "Is the user
  a runner?". Another participant's facts ("Melanie's employer is Globex.") name whom they are
  about and keep their text.
- A fact whose phrasing names what people ask about in other words says those words too: "My
  employer is Notion." is 0.29 from "Where do I work?" and 0.21 from "Where does she work?", under
  the floor's gate (0.35), so a user who only said "I just started at Notion" was told nothing;
  "My employer is Notion: I work there." is 0.49 and 0.37 from them and 0.63 from "employer"
  (0.66 before), and stays far from other questions ("Where do I live?" 0.21, "Am I a runner?"
  0.04). Another participant's facts need no such words: their name is most of what a question
  about them shares with them.
"""

from __future__ import annotations

import re

from memex import first_person

# The employer fact in the user's voice, and what it says in everyday words.
_EMPLOYER = re.compile(r"^My employer is (?P<value>.+)\.$")
_EMPLOYER_SAID = r"My employer is \g<value>: I work there."


def of(content: str, context: str | None = None, *, memory_type: str, subject: str | None) -> str:
    """What is embedded for a memory of this type and subject ("user" or a participant's name)."""
    if memory_type != "episodic" and (subject or "user") == "user":
        content = _EMPLOYER.sub(_EMPLOYER_SAID, first_person.of(content) or content)
    return f"{context}\n{content}" if context else content
