"""The offline extractor: first-person patterns, no LLM. It misses things; it never invents.

Only messages with role "user" are read (the user's own, and those of other named participants,
whose facts are filed under their name), one sentence at a time, read as people type it ("i'm",
curly apostrophes, an "I" dropped at the start: "started at Acme last week"; the chat typist's "im",
"bf", "lol", emoji and lowercase names: casual.py). A question is
skipped (but "I live in Lisbon, you?" and "I'm vegan, so what can I cook?" keep their statement, and
"What should I get my sister Ana?" the name it takes for granted), words quoted within a sentence
are mentioned, not said, and a match whose clause is negated,
hedged, hypothetical or reported ("I don't work at", "if I lived in", "I think I'm allergic",
"he thinks I live in") yields nothing. Each rule of `rules.RULES` is a regex with a
`value` group (and sometimes a `kind`, `thing` or `topic` group that names the key) and a clean
function that validates and normalises what it captured; a name must look like one (capitalised,
not a weekday or a nationality), a role must end in a known job title, an opinion must use a
known evaluative word. A correction ("actually I meant Lisbon, not Porto", "Actually my sister
lives in Porto, not Braga") only re-emits a fact already stated in the turn or in the session
history, with the corrected value, when its other words are that fact's; the value after "not" is
never filed. A statement the user takes back ("Please forget that I'm allergic to peanuts", "Forget
what I said about moving to Berlin", "Scratch that, I don't have a cat") ends the current fact it names
and files nothing of its own (corrections.py; supersession.left_alone).

Time grows linearly with the message: a sentence longer than statements.MAX_SENTENCE_CHARS is not
read, the words that qualify a match are located once per sentence, and a correction finds the fact
it corrects through an index. A pattern is scanned only over a sentence holding the words it requires
(required.py, matching._Sieve), and a sentence said again in a message is matched once. CPU seconds per
MB, `python -m bench.extractor_speed --against OTHER_CHECKOUT --data locomo-dev.json` (one run, 2 cores at
load ~5-6: read the ratios, against e1c2e6e1, before the sieve): one repeated sentence 0.69 (0.15x),
varied prose 1.8 (0.55x), a list 1.56 (0.71x), a log 0.94 (0.30x), code 0.79 (0.41x), LoCoMo's lines
0.99 (0.32x). What the table's patterns require is read once and shipped (required_shipped.py, `make
required-words`): reading it at a process's first extraction cost ~1.1 s of CPU.

The modules, one job each: patterns.py (the regex building blocks the rules share), values.py (the
clean functions they share), rule.py (a rule and the candidate its match files), rules/ (the table,
one module per domain: work, places, languages_and_schooling, identity, health, people, vehicles,
pastimes, household, pets, home, plans, answers, likes; each with its rules, clean functions and
patterns), statements.py (a message as the sentences it states), required.py (the words a pattern
requires, read from the pattern), required_shipped.py (that reading of the table, shipped), matching.py (which rules match a sentence, and whether a match is a
plain statement), corrections.py (what a later sentence takes back or restates), extractor.py
(OfflineExtractor, the public entry).
"""



def __getattr__(name: str):
    # OfflineExtractor loads the whole rule table (its modules, the sieve's reading of its patterns): a
    # reader of one submodule (the pipeline's corrections.GONE_AGAIN) does not pay for it.
    if name == "OfflineExtractor":
        from memex.extraction.offline.extractor import OfflineExtractor

        return OfflineExtractor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
