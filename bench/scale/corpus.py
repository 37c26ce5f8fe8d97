"""Synthetic memories and questions: what the offline extractor and the episodic path write, with
an English word distribution, and the pool of distinct texts the real embedder embeds.

Words come from the local model's own vocabulary (all-MiniLM-L6-v2's WordPiece list, whose whole
English words are ordered roughly by frequency) and are drawn with Zipf's law over that order, so
"the", "time" or "user" are everywhere and "salamanca" is in a handful of memories.
"""

from __future__ import annotations

import json
import tempfile
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

ZIPF_EXPONENT = 1.07  # English running text
# Where the pool's vectors are kept between runs, by default.
CACHE_DIR = Path(tempfile.gettempdir()) / "memex-scale-cache"
NOISE_NORM = 0.25  # the norm of the noise added to a pool vector before normalising (cos ~0.97)

NAMES = ("Maria", "James", "Aisha", "Chen", "Lucas", "Priya", "Tom", "Sofia", "Omar", "Hannah", "Kenji",
         "Elena", "Noah", "Fatima", "Leo", "Grace", "Mateo", "Yuki", "Ivan", "Zoe", "Caroline", "Melanie")
RELATIONS = ("wife", "husband", "sister", "brother", "mother", "father", "daughter", "son", "friend",
             "manager", "cousin", "partner", "neighbour", "dog", "cat")
THINGS = ("book", "movie", "food", "color", "band", "city", "sport", "game", "season", "drink")
ROLES = ("engineer", "designer", "manager", "teacher", "nurse", "analyst", "writer", "developer", "chef")
SUFFIXES = ("Labs", "Systems", "Health", "Foods", "Capital", "Studio", "Works", "Group")
OPENERS = ("I went to the", "We talked about", "Yesterday I tried", "My {relation} said the", "Did you see the",
           "I'm thinking about", "Last weekend we visited the", "I finally finished the", "Remember the",
           "I can't stop thinking about", "We should plan the", "I just got back from the")
QUESTIONS = ("Where does the user work?", "What is the name of my {relation}?", "What did I say about {word}?",
             "When did we talk about {word} and {word}?", "Does the user like {word}?",
             "What is my favorite {thing}?", "Who is {name}?", "What happened with the {word} last {word}?",
             "Which {word} did {name} recommend?", "How did the user feel about {word}?",
             "Where does the user live now?", "What does my {relation} think about {word}?")


@lru_cache(maxsize=1)
def vocabulary() -> tuple[str, ...]:
    """Lowercase whole English words of the model's vocabulary, most frequent first."""
    from memex.embeddings.minilm import model_zip_path

    with zipfile.ZipFile(model_zip_path()) as archive:
        vocab = json.loads(archive.read("tokenizer.json"))["model"]["vocab"]
    return tuple(word for word, _ in sorted(vocab.items(), key=lambda item: item[1])
                 if word.isascii() and word.isalpha() and word.islower() and len(word) >= 3)


class Words:
    """Zipf-distributed words over the vocabulary."""

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._words = vocabulary()
        weights = 1.0 / np.arange(1, len(self._words) + 1) ** ZIPF_EXPONENT
        self._cumulative = np.cumsum(weights / weights.sum())

    def draw(self, n: int) -> list[str]:
        ranks = np.searchsorted(self._cumulative, self._rng.random(n))
        return [self._words[min(r, len(self._words) - 1)] for r in ranks]

    def pick(self, options) -> str:
        return options[int(self._rng.integers(len(options)))]

    def integer(self, low: int, high: int) -> int:
        return int(self._rng.integers(low, high))

    def proper(self) -> str:
        return self.draw(1)[0].capitalize()


@dataclass(frozen=True)
class Text:
    content: str
    semantic_key: str | None  # the key of a semantic memory; None for an episodic line


def semantic(words: Words) -> Text:
    """A fact as the offline extractor phrases it."""
    kind = words.integer(0, 8)
    if kind == 0:
        return Text(f"The user's employer is {words.proper()} {words.pick(SUFFIXES)}.", "employer")
    if kind == 1:
        return Text(f"The user lives in {words.proper()}.", "city")
    if kind == 2:
        relation = words.pick(RELATIONS)
        return Text(f"The user's {relation} is named {words.pick(NAMES)} {words.proper()}.", f"{relation}_name")
    if kind == 3:
        return Text(f"The user likes {' '.join(words.draw(words.integer(1, 4)))}.", "likes")
    if kind == 4:
        thing = words.pick(THINGS)
        return Text(f"The user's favorite {thing} is {' '.join(words.draw(2))}.", f"favorite_{thing}")
    if kind == 5:
        return Text(f"The user's job title is {words.draw(1)[0]} {words.pick(ROLES)}.", "job_title")
    if kind == 6:
        return Text(f"The user is allergic to {words.draw(1)[0]}.", "allergies")
    return Text(f"The user thinks {words.draw(1)[0]} is {' '.join(words.draw(2))}.", "opinion")


def episodic(words: Words) -> Text:
    """One line of conversation, its speaker's name first, as the episodic path stores it."""
    opener = words.pick(OPENERS).format(relation=words.pick(RELATIONS))
    tail = " ".join(words.draw(words.integer(4, 16)))
    return Text(f"{words.pick(NAMES)}: {opener} {tail}{words.pick(('.', '!', '?', '...'))}", None)


def pool(size: int, seed: int) -> list[Text]:
    """`size` distinct texts, a quarter of them facts."""
    words = Words(np.random.default_rng(seed))
    seen: set[str] = set()
    texts: list[Text] = []
    while len(texts) < size:
        text = semantic(words) if len(texts) % 4 == 0 else episodic(words)
        if text.content not in seen:
            seen.add(text.content)
            texts.append(text)
    return texts


def questions(n: int, seed: int) -> list[str]:
    words = Words(np.random.default_rng(seed))
    found = []
    for i in range(n):
        template = QUESTIONS[i % len(QUESTIONS)]
        while "{word}" in template:
            template = template.replace("{word}", words.draw(1)[0], 1)
        found.append(template.format(relation=words.pick(RELATIONS), thing=words.pick(THINGS),
                                     name=words.pick(NAMES)))
    return found


def embedded_pool(size: int, seed: int, embedder, cache_dir: Path, progress) -> tuple[list[Text], np.ndarray]:
    """`pool(size, seed)` and the real embedder's vectors of it, read from `cache_dir` when an earlier
    run (of bench.scale or bench.family_keys) wrote them for the same texts."""
    texts = pool(size, seed)
    cache = cache_dir / f"pool-{seed}-{size}-{embedder.name}.npy"
    if cache.exists():
        stored = np.load(cache)
        if stored.shape[0] == len(texts):
            progress(f"pool of {len(texts):,} texts read from {cache}")
            return texts, stored
    started = time.perf_counter()
    vectors = np.asarray(embedder.embed([t.content for t in texts]), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    progress(f"pool of {len(texts):,} texts embedded in {time.perf_counter() - started:.0f} s")
    return texts, vectors


def noisy(vectors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each vector moved by noise of norm ~NOISE_NORM, normalised again: near neighbours of the
    pool's texts, so that no two rows share a vector."""
    noise = rng.standard_normal(vectors.shape, dtype=np.float32) * (NOISE_NORM / np.sqrt(vectors.shape[1]))
    moved = vectors + noise
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)
