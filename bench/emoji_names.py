"""The probe behind reading an emoji as its name (memex.emoji, embeddings/named_emoji.py): the local
model's cosine of pairs of a question and a memory, the emoji as sent (what the embedder read until
migration 0054), its Unicode name beside it, and its name in its place (what it reads now).

    python bench/emoji_names.py

The model itself (MiniLMEmbedder), unwrapped: the same figures on any version."""

from __future__ import annotations

import re
import unicodedata

from memex.embeddings.minilm import MiniLMEmbedder

PAIRS = [("🍕", "My favourite food is pizza"), ("pizza", "My favourite food is 🍕"),
         ("🍕", "My favourite food is 🍕"), ("🍣 dinner", "Had the best 🍣 tonight!"),
         ("sushi", "Had the best 🍣 tonight!"), ("🍕", "Had the best 🍣 tonight!"),
         ("🐶", "I walked my dog this morning"), ("dog", "I walked my 🐶 this morning"),
         ("party", "Loving my new job at Stripe 🎉"), ("🎉", "I went to a party last night"),
         ("What do I like to eat?", "My favourite food is 🍕"), ("Where do I work?", "Loving my new job at Stripe 🎉"),
         # off-topic: an emoji the user never used
         ("🦄", "My favourite food is 🍕"), ("🦄", "Had the best 🍣 tonight!"), ("🦄", "I walked my dog this morning")]
_EMOJI = re.compile("[\u2600-\u27bf\U0001f300-\U0001faff]")


def _beside(text: str) -> str:
    return _EMOJI.sub(lambda m: f"{m.group()} ({unicodedata.name(m.group()).lower()})", text)


def _in_place(text: str) -> str:
    return _EMOJI.sub(lambda m: f" {unicodedata.name(m.group()).lower()} ", text)


def main() -> None:
    embedder = MiniLMEmbedder()
    print("| question | memory | as sent | name beside | name in place |\n|---|---|---|---|---|")
    for question, memory in PAIRS:
        cosines = []
        for form in (str, _beside, _in_place):
            a, b = embedder.embed([form(question), form(memory)])
            cosines.append(f"{float(a @ b):.3f}")
        print(f"| {question} | {memory} | " + " | ".join(cosines) + " |")


if __name__ == "__main__":
    main()
