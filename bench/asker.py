"""Questions whose asker says "I" about someone else: how near the fact that answers each comes,
and the user's unrelated facts, with the question voiced as the user would ask it
(`first_person.asked`: the asker is "you") against voiced with asker and user both "I"
(`first_person.of`, which the search used before) and as asked.

    .venv/bin/python -m bench.asker

The questions and facts were written for this measurement (an agent asking about the user it
serves); the facts are embedded as the service embeds them (embedded_text.py). Prints each
question's cosines and their means, and how many reach the floor's gate (0.35, floor.py).
"""

from __future__ import annotations

import numpy as np

from memex import embedded_text, first_person
from memex.embeddings.minilm import MiniLMEmbedder
from memex.retrieval import floor

# (question, the fact that answers it)
PAIRS = [
    ("What gift should I buy the user for her birthday?", "The user loves gardening."),
    ("Should I book the user a window seat?", "The user prefers window seats."),
    ("Can I schedule a call with the user on Friday?", "The user is off on Fridays."),
    ("What book should I recommend to the user?", "The user loves science fiction novels."),
    ("How should I address the user?", "The user's name is Sam."),
    ("Which restaurant should I suggest to the user?", "The user is allergic to shellfish."),
    ("Should I remind the user about her medication?", "The user takes insulin every morning."),
    ("What should I cook when the user comes over for dinner?", "The user is vegetarian."),
    ("Can I call the user in the morning?", "The user works night shifts."),
    ("What music should I play for the user?", "The user loves jazz."),
    ("What should I get the user for Christmas?", "The user collects vinyl records."),
    ("Where should I take the user on holiday?", "The user loves hiking in the mountains."),
    ("What should I know before I meet the user?", "The user is deaf."),
    ("Should I send the user a reminder about the dentist?", "The user has a dentist appointment on Monday."),
]
UNRELATED = ["The user's employer is Notion.", "The user lives in Leeds.", "The user's sister is named Ruth.",
             "The user has a cat named Miso.", "The user is 43 years old.", "The user plays the cello."]
FORMS = {"as asked": lambda q: q, "asker and user as I": first_person.of, "asker as you": first_person.asked}


def _as_stored(fact: str) -> str:
    return embedded_text.of(fact, memory_type="semantic", subject="user")


def main() -> None:
    embedder = MiniLMEmbedder()
    facts = embedder.embed([_as_stored(fact) for _, fact in PAIRS])
    unrelated = embedder.embed([_as_stored(fact) for fact in UNRELATED])
    gate = floor.DEFAULT.gate_similarity
    rows = {}
    for name, form in FORMS.items():
        questions = embedder.embed([form(question) for question, _ in PAIRS])
        answering = np.einsum("ij,ij->i", questions, facts)
        best_unrelated = (questions @ unrelated.T).max(axis=1)
        rows[name] = (answering, best_unrelated)
        print(f"{name:22} answering fact {answering.mean():.3f} (>= {gate}: {int((answering >= gate).sum())}), "
              f"best unrelated {best_unrelated.mean():.3f} (>= {gate}: {int((best_unrelated >= gate).sum())}), "
              f"of {len(PAIRS)}")
    print()
    for i, (question, fact) in enumerate(PAIRS):
        cells = "  ".join(f"{rows[name][0][i]:.3f}/{rows[name][1][i]:.3f}" for name in FORMS)
        print(f"{question[:56]:56} {cells}   {fact}")
    print(f"\n(answering / best unrelated, for: {', '.join(FORMS)})")


if __name__ == "__main__":
    main()
