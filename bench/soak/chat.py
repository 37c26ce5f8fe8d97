"""What the soak's simulated users say: chat lines, some carrying a fact that later changes (a move,
a new job) or stays (the dog's name), and what each user's memory must hold at the end.

Every value is said once per user (a city or employer is never returned to), so an old value is
unambiguously history and the last one said is the one current value of its key."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Iterator

CITIES = ["Lisbon", "Porto", "Dublin", "Oslo", "Berlin", "Madrid", "Vienna", "Prague", "Warsaw", "Helsinki",
          "Munich", "Lyon", "Seville", "Bologna", "Geneva", "Zurich", "Ghent", "Utrecht", "Bergen", "Tallinn",
          "Riga", "Krakow", "Valencia", "Marseille", "Hamburg", "Leipzig", "Cork", "Galway", "Bristol", "Leeds",
          "Glasgow", "Toulouse", "Nantes", "Bilbao", "Turin", "Naples", "Antwerp", "Aarhus", "Malmo", "Gdansk"]
EMPLOYERS = ["Stripe", "Notion", "Shopify", "Spotify", "Airbnb", "Dropbox", "Atlassian", "Figma", "Canva",
             "Zalando", "Booking", "Adyen", "Klarna", "Revolut", "Monzo", "Wise", "Datadog", "Twilio", "Zendesk",
             "Intercom", "Asana", "Slack", "GitLab", "Elastic", "Mozilla", "Unity", "Miro", "Personio", "Celonis",
             "Deliveroo", "Bolt", "Glovo", "Cabify", "Typeform", "Factorial", "Mollie", "Bunq", "Trivago", "N26",
             "Sumup"]
DOGS = ["Biscuit", "Pepper", "Miso", "Tofu", "Waffles", "Nacho", "Pickle", "Mochi", "Noodle", "Pretzel"]
FILLER = ["Had a long day, I think I'll just watch something and sleep early.",
          "The weather was lovely this afternoon.",
          "Can you suggest a quick dinner idea?",
          "I finished the book you recommended, it was fine.",
          "Thanks, that helps a lot!",
          "Not much going on today honestly.",
          "I'm a bit tired but happy.",
          "What should I watch tonight?"]

# The search a user asks about each key, and the key the memory files the fact under.
QUESTIONS = {"city": "where does the user live?", "employer": "where does the user work?",
             "pet_dog_name": "what is the user's dog called?"}
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Line:
    content: str
    key: str | None = None  # the fact it carries, if any
    value: str | None = None
    timestamp: str | None = None


@dataclass
class User:
    """One simulated user: what they said, per key in order, and whether their turns carry a timestamp
    (an app importing dated chat) or take the server's clock."""

    user_id: str
    dated: bool
    said: dict[str, list[str]] = field(default_factory=dict)
    turns: int = 0

    def lines(self, rng: random.Random) -> Iterator[Line]:
        cities, employers = rng.sample(CITIES, len(CITIES)), rng.sample(EMPLOYERS, len(EMPLOYERS))
        yield self._line(f"I live in {cities.pop()}.", "city")
        yield self._line(f"I work at {employers.pop()}.", "employer")
        yield self._line(f"My dog is called {rng.choice(DOGS)}.", "pet_dog_name")
        while True:
            roll = rng.random()
            if roll < 0.25 and cities:
                yield self._line(rng.choice(["I moved to {} last month.", "We just moved to {}, still unpacking."])
                                 .format(cities.pop()), "city")
            elif roll < 0.45 and employers:
                old = self.said["employer"][-1]
                yield self._line(f"I just started at {employers.pop()}, left {old}.", "employer")
            else:
                yield self._line(rng.choice(FILLER), None)

    def _line(self, content: str, key: str | None) -> Line:
        value = None
        if key is not None:
            value = _value_of(content, key)
            self.said.setdefault(key, []).append(value)
        self.turns += 1
        stamp = (START + timedelta(hours=self.turns)).strftime("%Y-%m-%dT%H:%M:%SZ") if self.dated else None
        return Line(content, key, value, stamp)


def _value_of(content: str, key: str) -> str:
    names = CITIES if key == "city" else EMPLOYERS if key == "employer" else DOGS
    # The first name the line says is the new value ("started at X, left Y").
    return min((content.index(name), name) for name in names if name in content)[1]


def violations(user: User, memories: list[dict]) -> list[str]:
    """What is wrong with `user`'s memory (every memory, history included) against what they said:
    a key whose current value is not the last said, or has two; an earlier value missing from the
    history or still current; the same key and value current twice."""
    wrong = []
    current: dict[tuple[str, str], int] = {}
    for memory in memories:
        if memory.get("active") and memory.get("key"):
            pair = (memory["key"], str(memory["value"]))
            current[pair] = current.get(pair, 0) + 1
    for (key, value), count in current.items():
        if count > 1:
            wrong.append(f"{user.user_id}: {key}={value} current {count} times")
    for key, values in user.said.items():
        active = sorted({v for (k, v) in current if k == key})
        if active != [values[-1]]:
            wrong.append(f"{user.user_id}: {key} current {active}, said last {values[-1]!r}")
        old = {str(m["value"]) for m in memories if m.get("key") == key and not m.get("active")}
        for value in values[:-1]:
            if value not in old:
                wrong.append(f"{user.user_id}: {key}={value} (said earlier) not in the history")
    return wrong
