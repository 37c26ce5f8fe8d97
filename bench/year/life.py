"""The year's user: 365 days of chat, generated from a seed, and what is true of her on each day.

Her life changes as a long-lived user's does: ten employers, four moves, a partner met and married, a
daughter born, pets (the first dog never named again after the second day), a diet taken up, dropped
and another taken up, an opinion turned round, and chit-chat in between. Each change is said once, in
one of a few everyday phrasings (not all of which the offline rules read: that is part of the trial).
Nothing here depends on today's date: day d is `start + d days`, the start given by the caller."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

NAMES = ["Nora", "Ines", "Maren", "Talia", "Freya"]
PARTNERS = ["Sam", "Jonas", "Ravi", "Luca", "Teo"]
CHILDREN = ["Maya", "Ada", "Lena", "Iris", "Zoe"]
DOGS = ["Biscuit", "Pepper", "Miso", "Waffles", "Pickle"]
SECOND_DOGS = ["Rex", "Bruno", "Otto", "Ziggy", "Bo"]
CATS = ["Luna", "Clementine", "Smudge", "Olive", "Juniper"]
HOMETOWNS = ["Galway", "Tromso", "Bruges", "Ljubljana", "Coimbra"]
CITIES = ["Lisbon", "Dublin", "Oslo", "Berlin", "Vienna", "Prague", "Warsaw", "Helsinki", "Lyon", "Seville"]
EMPLOYERS = ["Stripe", "Notion", "Shopify", "Spotify", "Dropbox", "Atlassian", "Figma", "Canva", "Zalando", "Adyen",
             "Klarna", "Datadog", "Twilio", "Intercom", "Asana", "GitLab", "Elastic", "Mozilla", "Miro", "Personio"]
JOB_CHANGES = ["I just started at {new}, left {old}.", "I started a new job at {new} today.",
               "I quit {old} and joined {new} this week.", "I switched from {old} to {new}.",
               "I'm now working at {new}.", "First day at {new} tomorrow, said goodbye to everyone at {old}."]
MOVES = ["We just moved to {city}, still unpacking.", "I moved to {city} this weekend."]
FILLER = ["Had a long day, I think I'll just watch something and sleep early.", "The weather was lovely this afternoon.",
          "Can you suggest a quick dinner idea?", "What should I watch tonight?", "Not much going on today honestly.",
          "I'm a bit tired but happy.", "Thanks, that helps a lot!", "Any tips for sleeping better?",
          "I finished the book you recommended, it was fine.", "Remind me what a good stretch for my back is?",
          "The traffic this morning was unreal.", "Can you help me write a birthday message for a friend?",
          "I tried a new coffee place near the office.", "It rained all day, stayed in.",
          "What's a good podcast for a long walk?", "I need a gift idea for my brother."]
REPLIES = ["Got it, thanks for telling me.", "That sounds like a lot, how are you feeling about it?",
           "Here's an idea: keep it simple tonight.", "Happy to help with that.", "Noted!"]


@dataclass
class Turn:
    day: int
    user: str
    assistant: str


@dataclass
class Life:
    """What she said, day by day, and the truth the questions are checked against."""

    name: str
    hometown: str
    first_dog: str
    employers: list[tuple[int, str]] = field(default_factory=list)  # (day it began, employer)
    cities: list[tuple[int, str]] = field(default_factory=list)
    partner: tuple[int, str] | None = None
    child: tuple[int, str] | None = None
    cat: tuple[int, str] | None = None
    second_dog: tuple[int, str] | None = None
    diets: list[tuple[int, str | None]] = field(default_factory=list)  # None: the diet dropped
    opinions: list[tuple[int, str]] = field(default_factory=list)  # remote work
    days: list[list[Turn]] = field(default_factory=list)

    @staticmethod
    def current(chain: list[tuple[int, str | None]], day: int) -> str | None:
        said = [value for start, value in chain if start <= day]
        return said[-1] if said else None


def generate(seed: int, days: int = 365, turns_per_day: tuple[int, int] = (3, 10)) -> Life:
    rng = random.Random(seed)
    employers = rng.sample(EMPLOYERS, 10)
    cities = rng.sample(CITIES, 5)
    life = Life(name=rng.choice(NAMES), hometown=rng.choice(HOMETOWNS), first_dog=rng.choice(DOGS))
    events: dict[int, list[str]] = {}

    def say(day: int, line: str) -> None:
        events.setdefault(min(day, days - 1), []).append(line)

    say(0, f"Hi! I'm {life.name}.")
    say(0, f"I work at {employers[0]}.")
    say(0, f"I live in {cities[0]}.")
    say(1, f"I grew up in {life.hometown}.")
    say(1, f"My dog is called {life.first_dog}.")
    life.employers.append((0, employers[0]))
    life.cities.append((0, cities[0]))
    for i in range(1, 10):  # a job every ~36 days, the phrasing in turn
        day = i * days // 10 + rng.randint(-(days // 73), days // 73)  # ±5 days in a year
        say(day, JOB_CHANGES[(i - 1) % len(JOB_CHANGES)].format(new=employers[i], old=employers[i - 1]))
        life.employers.append((day, employers[i]))
    for i, day in enumerate((days * 80 // 365, days * 170 // 365, days * 260 // 365, days * 330 // 365), 1):
        say(day, MOVES[i % 2].format(city=cities[i]))
        life.cities.append((day, cities[i]))
    partner, child = rng.choice(PARTNERS), rng.choice(CHILDREN)
    cat, dog = rng.choice(CATS), rng.choice(SECOND_DOGS)
    at = lambda d: days * d // 365  # noqa: E731 - the year's calendar, scaled to a shorter run
    life.partner = (at(60), partner)
    say(at(60), f"I've been dating {partner} for a month now.")
    say(at(120), f"{partner} moved in with me.")
    say(at(200), f"{partner} and I got married today.")
    say(at(230), f"{partner} is pregnant!")
    life.child = (at(290), child)
    say(at(290), f"Our daughter {child} was born this morning!")
    say(at(320), f"My daughter {child} is one month old now.")
    say(at(350), f"{child} started smiling at everyone.")
    life.cat = (at(100), cat)
    say(at(100), f"We adopted a cat named {cat}.")
    say(at(210), f"{life.first_dog} passed away last week, we're heartbroken.")
    life.second_dog = (at(250), dog)
    say(at(250), f"We adopted a second dog, a beagle named {dog}.")
    life.diets = [(at(90), "vegetarian"), (at(140), None), (at(270), "vegan")]
    say(at(90), "I'm vegetarian now.")
    say(at(140), "I stopped being vegetarian, I missed burgers too much.")
    say(at(270), "I went vegan this week.")
    life.opinions = [(at(50), "overrated"), (at(220), "great")]
    say(at(50), "I think remote work is overrated.")
    say(at(220), "Honestly I think remote work is great now.")
    for day in range(days):
        said = events.get(day, [])
        n = max(rng.randint(*turns_per_day), len(said))
        lines = said + [rng.choice(FILLER) for _ in range(n - len(said))]
        # The day's news comes first in the order said (a fact said at 9:00 precedes the small talk).
        life.days.append([Turn(day, line, rng.choice(REPLIES)) for line in lines])
    return life


def timestamp(start: datetime, day: int, index: int) -> str:
    """Day `day`'s `index`th turn: from 08:00, ten minutes apart."""
    return (start + timedelta(days=day, hours=8, minutes=10 * index)).strftime("%Y-%m-%dT%H:%M:%SZ")
