"""The synthetic history the write benchmarks import: one-line user messages, in time order,
about a few dozen facts that keep changing (city, employer, role, age, …) between chatter that
holds none, so that the offline extractor finds a fact in most lines and supersession replaces
values under the same keys again and again. Optionally LoCoMo lines mixed in (read from where
they are, never copied)."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Paris", "Boston", "Denver", "Austin", "Seattle", "Toronto",
          "Dublin", "Vienna", "Prague", "Oslo", "Kyoto", "Sydney", "Chicago", "Zurich", "Munich", "Milan"]
COMPANIES = ["Stripe", "Notion", "Figma", "Shopify", "Atlassian", "Spotify", "Canva", "Datadog", "Airbnb",
             "Dropbox", "Zapier", "Asana", "Twilio", "Gitlab", "Vercel", "Linear", "Miro", "Pinterest"]
ROLES = ["software engineer", "product manager", "data scientist", "designer", "nurse", "teacher",
         "accountant", "architect", "consultant", "researcher", "engineering manager", "barista"]
NAMES = ["Biscuit", "Rollo", "Maple", "Pepper", "Luna", "Ziggy", "Olive", "Mochi", "Juniper", "Toast"]
PEOPLE = ["Ana", "Clara", "Marta", "Sofia", "Ines", "Laura", "Nora", "Elena", "Rita", "Vera"]
THINGS = ["hiking in the mountains", "sourdough baking", "jazz records", "trail running", "board games",
          "sushi", "rock climbing", "watercolor painting", "indie films", "cold brew coffee", "chess",
          "gardening", "vintage cameras", "sailing", "crossword puzzles", "spicy ramen", "tennis",
          "science fiction novels", "pottery", "birdwatching", "cilantro", "country music", "mushrooms",
          "horror movies", "long meetings", "olives", "karaoke", "traffic jams"]
CHATTER = [
    "Had a long day, the weather was awful.", "Can you remind me what we talked about yesterday?",
    "Thanks, that was really helpful.", "The meeting ran over again this afternoon.",
    "What should I cook tonight?", "Traffic was terrible on the way back.",
    "I finally finished that report for the quarterly review.", "Let's pick this up tomorrow morning.",
    "Any ideas for a weekend trip nearby?", "The train was late again, third time this week.",
    "I need a good book for the flight.", "My laptop keeps freezing when I open too many tabs.",
    "We watched a documentary about octopuses last night.", "How long should I rest between sets?",
]


def _fact(rng: random.Random) -> str:
    kind = rng.randrange(11)
    if kind == 0:
        return rng.choice(["I live in {} now.", "I moved to {} last month.", "I'm based in {} these days."]).format(
            rng.choice(CITIES))
    if kind == 1:
        return rng.choice(["I work at {}.", "I just started at {}.", "I joined {} recently."]).format(
            rng.choice(COMPANIES))
    if kind == 2:
        return rng.choice(["I'm a {}.", "I work as a {}."]).format(rng.choice(ROLES))
    if kind == 3:
        return rng.choice(["I'm {} years old.", "I just turned {}."]).format(rng.randint(25, 60))
    if kind == 4:
        return f"My dog's name is {rng.choice(NAMES)}."
    if kind == 5:
        return f"My sister is named {rng.choice(PEOPLE)}."
    if kind in (6, 7):
        return rng.choice(["I love {}.", "I really enjoy {}.", "I'm a big fan of {}."]).format(rng.choice(THINGS))
    if kind == 8:
        return f"I can't stand {rng.choice(THINGS)}."
    if kind == 9:
        return f"I used to live in {rng.choice(CITIES)}."
    return f"I'm originally from {rng.choice(CITIES)}."


def synthetic_lines(n: int, user_id: str, seed: int = 8, locomo: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """`n` one-message turns for one user, a minute apart in sessions of 20: two in three state a
    fact, the others are chatter (or, with `locomo`, a LoCoMo line)."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        if rng.random() < 2 / 3:
            content = _fact(rng)
        elif locomo:
            content = locomo[i % len(locomo)]
        else:
            content = rng.choice(CHATTER)
        yield {"user_id": user_id, "session_id": f"s{i // 20}",
               "timestamp": (start + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
               "messages": [{"role": "user", "content": content}]}


def locomo_lines(data: Path) -> list[str]:
    """Every dialog line of the LoCoMo file, in order."""
    lines = []
    for sample in json.loads(data.read_text()):
        conversation = sample["conversation"]
        for key in sorted((k for k in conversation if k.startswith("session_") and k[8:].isdigit()),
                          key=lambda k: int(k[8:])):
            lines.extend(turn["text"] for turn in conversation[key] if turn.get("text"))
    return lines


def write_file(path: Path, n: int, user_id: str, data: Path | None = None) -> Path:
    locomo = locomo_lines(data) if data else None
    with path.open("w", encoding="utf-8") as out:
        for line in synthetic_lines(n, user_id, locomo=locomo):
            out.write(json.dumps(line) + "\n")
    return path
