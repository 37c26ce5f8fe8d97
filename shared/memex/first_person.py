"""A question or a fact about "the user" in the user's own voice, as the vector channel reads both.

Agents ask about the person memex serves as "the user" ("Is the user a runner?"), and memex files
that person's facts the same way ("The user's employer is Notion."). To a sentence embedder the
shared phrase is most of what two short sentences have in common: all-MiniLM-L6-v2 puts "Is the
user a runner?" at cosine 0.35 from "The user's employer is Notion." and 0.28 from "Ran 10k before
work", so every fact looks related, the floor's gate opens for anything, and the unrelated facts
outrank the line that answers. Asked as the user says things ("Am I a runner?"), the unrelated
facts fall to 0.05 and the line keeps 0.29: the user's messages are in the first person.

`of` rewrites a sentence's references to the user (and the verb they govern) into the first
person. The search embeds a question so for its vector channel (`asked`), and fuses the question
as asked beside it (it finds facts embedded before they were in the user's voice); the user's
facts are embedded so too ("The user's employer is Notion." as "My employer is Notion.",
embedded_text.py), so that neither side carries the phrase every fact shared.

A question that says "I" beside "the user" has two people in it, the agent asking and the user:
"what should I cook when the user comes over?" voiced as "what should I cook when I come over?"
makes them one. The user says "you" to the agent, so `asked` turns the asker's "I" into "you"
first ("what should you cook when I come over?"), as the user would ask it. A fact is asked by
no one: a first person in it quotes the user ("The user calls Biscuit 'my little monster'."),
and `of` leaves it as it is.

An agent also speaks of its user as "she" or "he" ("where does she work?", "what should I cook for
her?"). As asked, the pronoun is nobody in particular to the embedder, and a question that names
nothing the user said stays under the floor's gate ("Which company is she with?" against "My
employer is Stripe."). `asked` voices such a question as the user ("where do I work?", "what should
you cook for me?") when the pronoun can only be the user: the search says the question names none
of the user's participants, and nothing in it before a pronoun is someone else it could stand for:
a name ("What did Mel and her kids make?") or one person by what they are ("my sister ... is she").
Her relations stay relations ("her sister" is "my sister"). "They" is left: it is as often a group.
"""

from __future__ import annotations

import re

from memex.literal import caseless

# "<auxiliary> the user": the auxiliary agrees with "I".
_AUXILIARY = {"does": "do", "is": "am", "has": "have", "was": "was", "did": "did", "can": "can", "will": "will",
              "would": "would", "should": "should", "could": "could", "might": "might", "must": "must"}
_ASKED = re.compile(r"\b(" + "|".join(_AUXILIARY) + r")\s+(?:the|this)\s+user\b(?!['’])", re.IGNORECASE)
# "the user <verb>s" as a subject: the verb as "I" says it ("the user dislikes" -> "I dislike").
_SAYS = re.compile(r"\b(?:the|this)\s+user\s+([a-z]+)\b", re.IGNORECASE)
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
_NOT_VERBS = frozenset({"always", "sometimes", "perhaps", "nowadays"})  # adverbs, not verbs
# Words said between a subject and its verb ("she always runs"): the verb after them is the subject's.
OFTEN = r"(?:still|also|always|usually|often|sometimes|never|really|ever|just|now|already|actually)"
_POSSESSIVE = re.compile(r"\b(?:the|this)\s+user['’]s\b", re.IGNORECASE)
# After a verb ("employs the user", "tell the user") or a preposition, the user is "me".
_OBJECT = re.compile(r"\b(to|for|with|about|of|from|by|at|give|tell|remind|help|[a-z]+[^s\W]s)\s+(?:the|this)\s+user\b"
                     r"(?!['’])", re.IGNORECASE)
# After any other word and before no verb ("call the user?", "book the user a seat", "buy the user
# for her birthday"), the user is "me" too: what an asker does to the user.
_OPENS_CLAUSE = frozenset({"when", "where", "what", "who", "whom", "which", "why", "how", "if", "because", "that",
                           "and", "but", "or", "while", "since", "until", "before", "after", "whether", "as", "so",
                           "once", "than", "unless", "though", "although", "whenever", "then"})
_BEFORE_NO_VERB = re.compile(r"\b([a-z]+)\s+(?:the|this)\s+user\b(?!['’])(?=\s*(?:[^\w\s]|$|(?:a|an|the|this|that|"
                             r"some|any|every|next|her|his|their|in|on|at|to|for|about|with|from|by|of|into|after|"
                             r"before|during|tomorrow|today|tonight|now|again|back|up|and|or|but|if|when)\b))",
                             re.IGNORECASE)
_SUBJECT = re.compile(r"\b(?:the|this)\s+user\b(?!['’])", re.IGNORECASE)
# The asker's own first person, as the user would say it to the asker: longest forms first.
_ASKER_WORDS = {"i am": "you are", "am i": "are you", "i was": "you were", "was i": "were you",
                "i'm": "you're", "i": "you", "me": "you", "my": "your", "mine": "yours",
                "myself": "yourself"}
_ASKER = re.compile(r"\b(" + "|".join(sorted((re.escape(w) for w in _ASKER_WORDS), key=len, reverse=True))
                    + r")\b", re.IGNORECASE)

# "She" or "he" for the user, as an agent speaks of the person it serves ("where does she work?").
_PRONOUN = re.compile(r"\b(?:she|he|her|him|his|hers|herself|himself)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_ASKER_I = re.compile(r"I(?:'(?:m|ve|d|ll))?$")
# One person or animal a "she" or "he" may stand for: one of these after a determiner ("my sister",
# "the dog"; not "what type of dog does she own?", where the pronoun is the owner), or someone.
_PERSONS = frozenset(
    "sister brother mother mom mum father dad parent wife husband partner spouse girlfriend boyfriend fiance "
    "fiancee fiancé fiancée son daughter child kid baby friend boss manager colleague coworker roommate flatmate "
    "neighbour neighbor aunt uncle cousin niece nephew grandmother grandma granny grandfather grandpa doctor "
    "teacher woman man girl boy lady guy person dog puppy cat kitten horse pet".split())
_DETERMINERS = frozenset("a an the this that my your her his our their one".split())
_SOMEONE = frozenset("someone somebody anyone anybody everyone everybody nobody".split())
_PRONOUN_CONTRACTED = re.compile(r"\b(?:she|he)'(s|d|ll)\b", re.IGNORECASE)
_CONTRACTED = {"s": "I'm", "d": "I'd", "ll": "I'll"}
_HAS_CONTRACTED = re.compile(r"\s+(?:been|got)\b", re.IGNORECASE)  # "she's been" is "she has been"
_NEGATIVES = {"doesn't": "don't", "isn't": "aren't", "hasn't": "haven't", "wasn't": "wasn't", "didn't": "didn't",
              "can't": "can't", "won't": "won't", "wouldn't": "wouldn't", "shouldn't": "shouldn't",
              "couldn't": "couldn't"}
_PRONOUN_ASKED = re.compile(r"\b(" + "|".join([*_NEGATIVES, *_AUXILIARY])
                            + r")\s+(?:she|he)\b", re.IGNORECASE)
_AUXILIARY_OR_NEGATIVE = {**_AUXILIARY, **_NEGATIVES}
_PRONOUN_NEGATED = re.compile(r"\b(?:she|he)\s+(doesn|isn|hasn)'t\b", re.IGNORECASE)
_NEGATED = {"doesn": "don't", "isn": "am not", "hasn": "haven't"}
_PRONOUN_SAYS = re.compile(rf"\b(?:she|he)\s+((?:{OFTEN}\s+)?)([a-z]+)\b(?!['’])", re.IGNORECASE)
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")
# After "her" (or "his"), words that are not what it owns: "buy her a gift", "cook for her tonight".
_NOT_POSSESSED = frozenset(
    "a an the this that these those some any every no to for from with about of in on at into onto by up down "
    "out off over back again now then today tonight tomorrow yesterday yet too and or but if when while because "
    "so as than here there something anything everything nothing".split())
_OBJECTS = {"him": "me", "hers": "mine", "herself": "myself", "himself": "myself"}


def of(question: str) -> str | None:
    """`question` (or a statement) in the first person, or None when it does not refer to the user that way."""
    if not _SUBJECT.search(question) and not _POSSESSIVE.search(question):
        return None
    text = _ASKED.sub(lambda m: _same_case(m.group(1), _AUXILIARY[caseless(m.group(1))]) + " I", question)
    text = _POSSESSIVE.sub(lambda m: _same_case(m.group(0), "my"), text)
    text = _OBJECT.sub(lambda m: m.group(1) + " me", text)
    text = _BEFORE_NO_VERB.sub(lambda m: m.group(0) if caseless(m.group(1)) in _OPENS_CLAUSE else m.group(1) + " me",
                               text)
    text = _SAYS.sub(lambda m: "I " + as_i_say_it(m.group(1)), text)
    return _SUBJECT.sub("I", text)


def asked(question: str, pronouns: bool = False) -> str | None:
    """`question`, asked of the agent about the user, as the user would ask it: about "the user" (as
    `of`), or, with `pronouns` (the search: it names none of the participants), about "she" or "he"
    when nobody else in it could be meant; else None."""
    as_you = _ASKER.sub(_asker_as_you, question)
    voiced = of(as_you)
    if not pronouns or not says_she_or_he(question) or _someone_before(voiced or question):
        return voiced
    # "the user" voiced, a "his" after it is the user's too ("What did the user say about his
    # garden?": "my garden"; left "his", the question was near nothing the user said); an object
    # stays another's ("Did the user tell her?" is not "Did I tell me?").
    return _pronouns_as_i(as_you) if voiced is None else _PRONOUN.sub(_possessive_as_my, voiced)


def says_she_or_he(question: str) -> bool:
    """Whether `question` speaks of someone as "she" or "he" (her, his, him...)."""
    return bool(_PRONOUN.search(question))


def _someone_before(question: str) -> bool:
    """Whether, before one of its pronouns, the question names someone it could stand for: a name
    (a capital not opening a sentence, "What did Mel and her kids make?") or one person by what they
    are ("Where does my sister live, and is she happy there?")."""
    before = question[:list(_PRONOUN.finditer(question))[-1].start()]
    previous, last, end = "", "", 0  # the word before, the last character before the word that is not a space
    for word in _WORD.finditer(before):
        text, gap = word.group(0), before[end:word.start()].rstrip()
        last = gap[-1] if gap else last
        opens_sentence = not last or last in ".!?:;\"“("
        if (text[0].isupper() and not opens_sentence and not _ASKER_I.match(text)) or text.lower() in _SOMEONE \
                or (text.lower() in _PERSONS and previous in _DETERMINERS):
            return True
        previous, last, end = text.lower(), text[-1], word.end()
    return False


def _pronouns_as_i(question: str) -> str:
    """A question's "she" or "he" (and her, him, his...) as "I" (me, my...), the verbs they govern with them."""
    text = _PRONOUN_CONTRACTED.sub(
        lambda m: "I've" if _HAS_CONTRACTED.match(m.string, m.end()) else _CONTRACTED[caseless(m.group(1))], question)
    text = _PRONOUN_ASKED.sub(
        lambda m: _same_case(m.group(1), _AUXILIARY_OR_NEGATIVE[caseless(m.group(1))]) + " I", text)
    text = _PRONOUN_NEGATED.sub(lambda m: "I " + _NEGATED[caseless(m.group(1))], text)
    text = _PRONOUN_SAYS.sub(lambda m: "I " + m.group(1) + as_i_say_it(m.group(2)), text)
    return _PRONOUN.sub(_object_or_possessive, text)


def _possessive_as_my(match: re.Match) -> str:
    """"her" or "his" before a noun as "my"; any other pronoun as it is."""
    mine = _object_or_possessive(match)
    return mine if mine.lower() == "my" else match.group(0)


def _object_or_possessive(match: re.Match) -> str:
    """"her" before a noun is "my" ("her dog"), else "me" ("cook for her"); "his" alone is "mine"."""
    word = caseless(match.group(0))
    if word in ("she", "he"):
        mine = "I"
    elif word in ("her", "his"):
        after = _NEXT_WORD.match(match.string, match.end())
        noun_next = after is not None and caseless(after.group(1)) not in _NOT_POSSESSED
        mine = "my" if noun_next else "me" if word == "her" else "mine"
    else:
        mine = _OBJECTS[word]
    return mine.capitalize() if match.group(0)[0].isupper() and mine != "I" else mine


def _asker_as_you(match: re.Match) -> str:
    """The asker's "I" as the user says it to them; "I" is upper case anywhere, "you" only first."""
    word = _ASKER_WORDS[caseless(match.group(1))]
    first = not match.string[:match.start()].rstrip() or match.string[:match.start()].rstrip()[-1] in ".!?"
    return word.capitalize() if first else word


def as_i_say_it(verb: str) -> str:
    """A verb after "the user" (or "she", "my sister who") as it goes after "I": "lives" -> "live",
    "studies" -> "study", "has" -> "have"; a word that is no verb in the third person as it is ("always")."""
    lower = caseless(verb)
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _NOT_VERBS or not lower.endswith("s") or lower.endswith("ss"):
        return verb
    if lower.endswith("ies"):
        return verb[:-3] + "y"
    if lower.endswith(("ches", "shes", "xes", "zes", "sses")):
        return verb[:-2]
    return verb[:-1]


def _same_case(original: str, word: str) -> str:
    return word.capitalize() if original[:1].isupper() else word
