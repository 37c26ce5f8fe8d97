"""A question that names a kind of fact rather than the fact: "Does she have any pets?", "What are
her hobbies?", "Tell me about his family.", "Which company is she with?", "Any kids?".

The facts that answer such a question say none of its words ("The user's dog is named Bolt."), and
MiniLM puts the question as near a fact of another kind in the same frame: "Does she have any pets?"
is 0.50 from "The user is vegetarian." and 0.35 from the dog (docs/measurements/quality.md), and
"What does the user do in her free time?" passes the floor's gate with nothing at all. What ties the
question to its answers is the key the extractor filed each fact under (pet_dog_name, hobby): each
kind below names the keys of its facts, as both extractors write them (extraction/offline/rules/,
extraction/llm.py's prompt; a participant's fact has its subject before the key). The search reads
the user's current facts under those keys as one more ranking of the question
(memories.topic_statement); a fact it finds passes the floor, and counts as saying the question's
word for its kind (learned.py's asked words). The words of those keys also name them to the history
(past.key_words): "Which company is she with?" after "I don't work at Siemens anymore." asks about the
employer that ended, as "where does she work?" does.

The kinds are few and their words plain on purpose: a kind's word must ask for the kind ("pets",
"hobbies"), not qualify another noun ("a pet peeve", "health care", "a family business", "mental
health services", "a vegan diet group"), nor be an adjective as often as a noun ("animal products",
so only the plural "animals"), nor stand for something else as often ("conditions" alone is the
weather's too, so only "medical conditions"). A question about the past is not asked about
current facts of its kind: its own path reads the replaced facts of the key it names (past.py).

Some kinds' words are said of the world as often as of a person ("Which company makes the iPhone?",
"How old is the universe?", "Which city is home to the Louvre?"): those count only in a question asked
of someone (a pronoun, "the user", someone's name) or that is the word alone ("Any kids?"). And a kind
of the person's own (where she works, lives, is from; her age, her number) is not asked by a question
about someone in her life ("Which city does my sister live in?"), nor answered by their facts
("partner_luis_role" is no answer to "What's her line of work?"). Something of the partner's asked as
theirs, in any word for them ("What's my partner's job?", "my husband's", "my spouse's"), names the
partner's facts: "The user's wife Anna is a nurse." says none of the question's words, and its meaning
alone was below the relevance gate, so the question found nothing.

Of the facts of a kind, some answer before the others (`ordered`, after the ranking): whether she has
children is answered by how many ("The user has 2 children.") before a child's name, which the
question's vector put first for "Is the user a parent?" (unless a name, an age, a son or a daughter
is asked for); a job to come ("I start at Google next month.", `next_job`) comes right after the job
she has for "Where does she work?", and first for "What's her next job?". Where she grew up ("Where
did she grow up?", "Where was he raised?") names the hometown, a verb's frame rather than a kind's
word, asked of a person ("Where did the Beatles grow up?" names none); so does where she works
("Where does she work?", "Who does he work for?"), with the job to come, and so does what she does
("What do I do?", "What does she do for a living?"), which being a student, retired or out of work
answers as a job does (employment_status: "I'm a student." files no job title). The job to come is
first too for where she works next ("Where will she work next?", "What job is he starting?"). Asked for
her job ("What's her job?", "What does she do?"), the title comes before the employer; asked what she
studies ("What's her major?"), the field or the degree before the school; being a student ("Is she
studying?", "Am I in school?") is answered by the school, the field or the work status alike.

Where she is based ("Where is she based?") is where she lives, and so is the city, town or country she is
in or lives in ("What country is she in?"), which her own lines saying where she lives or moved to answer
too ("I moved to Lisbon and I work at Feedzai now.", above the employer it also names); a university
said short ("Which uni did she go to?") is schooling; her work, the noun ("What's her work?", "What kind of work does he
do?"), is her job. Being "a student" is asked of the person when it is said of her ("Is she a
student?"), not when it describes someone else ("Is he dating a student?", "Is her husband a
doctor?"): the partner is asked about, and the partner's facts lead (`Topic.lead`: first of all, above
the person's own being a student, which the question's word and meaning put first).

What she owns and how she lives are kinds too: her car or her driving ("Does she have a car?", "What
does Evan drive?"), a baby on the way ("Is she pregnant?"), renting or owning ("Does she rent or
own?"), her bank, what she saves for, the team she supports ("Which team does Leila support?"), whom
she lives with; a frame's verb asked of a participant by name reads that participant's facts. So is a
favourite, of the thing asked for ("What's my favourite film?", "Which novel does she like best?"), filed
under that thing's word or another for it (favorite_movie), not the favourites of other things, which
"favourite" alone put first by meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from memex import people
from memex.extraction import vocabulary
from memex.extraction.plurals import plural, stems

Scored = tuple[str, float, dict[str, Any]]


@dataclass(frozen=True)
class Topic:
    """The kinds a question names: the words that name them, the keys of their facts (a regular
    expression over a memory's key), and the words of those keys (as past.key_words gives them);
    the keys of the facts that answer before the kinds' others (`first`) and right after the best of
    them (`after`), regular expressions too, None for none (`ordered`); and what a memory says that
    tells of the kinds though no fact of theirs was filed (`told`, over its content: `tells`)."""

    words: frozenset[str]
    keys: str
    key_words: tuple[str, ...]
    first: str | None = None
    after: str | None = None
    lead: bool = False
    told: tuple[Told, ...] = ()


@dataclass(frozen=True)
class Told:
    """What a memory says that tells of a kind though no fact of it was filed: `said`, over its
    content; `cue`, words one of which `said` needs, looked for first in the content lowercased (a
    few substring tests cost a tenth of `said`'s reading, and most memories hold none of them)."""

    cue: tuple[str, ...]
    said: re.Pattern[str]

    def of(self, content: str) -> bool:
        lowered = content.lower()
        return any(word in lowered for word in self.cue) and self.said.search(content.replace("’", "'")) is not None


@dataclass(frozen=True)
class _Kind:
    words: str  # the question's words for the kind
    keys: str  # the keys of its facts, a regular expression
    key_words: tuple[str, ...]  # the words of those keys
    of_someone: bool = False  # its words are said of the world as often: asked of someone only
    own: bool = False  # the person's own: not asked about someone in their life
    unless: str | None = None  # words that make the question ask for another kind
    first: str | None = None  # the keys of the facts that answer it before its others
    first_unless: str | None = None  # words that ask for one of the others: then they are not first
    else_after: bool = False  # ... but right after the best of the others (they say nothing of what is asked)
    after: str | None = None  # the keys of the facts that come right after its best other fact
    leads: str | None = None  # words that ask whether its facts say something: then they come first of all
    ends: bool = True  # its words end what the question names (_ENDS), not a noun of theirs ("my wife's job")
    told: Told | None = None  # what a memory says that tells of the kind with no fact filed
    # the keys and their words of the thing its words name (their group "thing"), for `keys` and `key_words`
    of_thing: Callable[[str], tuple[str, tuple[str, ...]]] | None = None


# Relations whose facts are the family's: the offline rules' (partner_name, child_name, their facts
# about a named relative: partner_sam_role, an unnamed one's: grandmother_city) and the LLM prompt's
# sibling_ and parent_ keys; not a friend's, a boss's, a colleague's, a neighbour's nor a roommate's.
_FAMILY = sorted({kind for kind in vocabulary.RELATIONS.values() if kind != "friend"} | {"sibling", "parent"}
                 | set(vocabulary.KIN.values()))
# Everyone in the person's life whose facts are filed under what they are to her (boss_city).
_THEIRS = sorted({*_FAMILY, "friend", *vocabulary.PEOPLE.values()})


def _anyones(keys: str) -> str:
    """The kind's keys after a participant's name or a relative's ("melanie_pet_", "partner_sam_"), or alone."""
    return rf"(?:^|_)(?:{keys})"


# Whom a kind's words in a frame ask about ("where does she work", "where did the user grow up"): a
# pronoun or the user (a question that names the user by her own name asks about "the user" by then,
# speakers.as_the_user); not "the Beatles", "the new phone", nor a name she never said ("Mozart").
_WHO = r"(?:i|you|she|he|they|we|the user)"
# ... or a participant by name ("Who does Leila live with?", "What does Evan drive?"): her facts are
# filed under her name (speakers.py), and the search reads the named one's (search._topical); chains.py
# reads who moved or started by it too ("before she started", "before Evan moved")
WHO_OR_NAME = rf"(?:{_WHO}|(?-i:[A-Z])[a-z]+)"
# Words that ask where she works or studies rather than as what she works or what she studies, or for
# the job to come: the employer, the school, the job to come keep their places then ("Where's her job?", "What's her next
# job?", "Which university is she studying at?").
_WHERE_SHE_WORKS = (r"\b(?:where|who|whom|compan(?:y|ies)|employers?|firm|next|new|upcoming|future|starting|joining|"
                    r"changing|switching)\b")
_WHICH_SCHOOL = r"\b(?:where|which|what school|universit(?:y|ies)|college|uni)\b"
# ... or that asks for no subject nor degree ("What is her alma mater?", "What's her educational
# background?"): the school keeps its place
_NO_SUBJECT = r"|^(?!.*\b(?:majors?|majored|stud(?:y|ied|ying)|degrees?|subjects?|fields?)\b)"
# Being at school, as the question's verb says it: "Is she", "What's he", "Am I".
_IS = r"(?:\bis|\bare|\bam|\bwas|'s|'re|'m)"
_UNI = r"(?:uni|university|college)"
# Whose someone in her life is: hers ("my boss", "her cousin"), the user's or a participant's ("John's colleague").
_WHOSE_PERSON = r"(?:(?<=\bmy )|(?<=\bour )|(?<=\byour )|(?<=\bher )|(?<=\bhis )|(?<=\btheir )|(?<='s ))"
# The words for the partner (people.PARTNER: "wife", "spouse", "fiancée"), and with their many ("wives"), longest
# first: "partners" is taken whole, not "partner" and a word's end.
_PARTNER = "|".join(sorted(map(re.escape, people.PARTNER), key=len, reverse=True))
_PARTNERS = "|".join(sorted((re.escape(form) for word in people.PARTNER for form in (word, plural(word))),
                            key=len, reverse=True))


# The body hurting, as a person says it of their own: "My knee hurts after long runs.", "my back has
# been killing me", "I sprained my ankle", "I pulled a hamstring", "knee pain". Most of it files no fact
# (the offline rules read an injury only when a bone is broken or a ligament torn, rules/health.py), yet
# it is what "any injuries?" and "health problems?" ask about. A part of the body with a word of pain
# or of harm done to it, not a part alone ("my back yard", "I have your back") nor pain alone ("a pain
# to set up"); the speaker's own ("my knee"), not someone else's ("her knee hurts").
_BODY = (r"(?:(?:left|right|lower|upper|bad) )?(?:knees?|kneecaps?|back|shoulders?|neck|ankles?|wrists?|hips?|foot|"
         r"feet|hands?|elbows?|legs?|arms?|hamstrings?|calf|calves|achilles|groin|shins?|heels?|toes?|fingers?|"
         r"thumbs?|ribs?|spine|joints|muscles?|jaw|teeth|tooth)")
# The words of pain and of harm, each written once, as said: the pattern reads them, and the words
# Told looks for first in a memory are these same words.
# after the part ("my knee hurts", "my back has been killing me")
_PAINS = ("hurt", "hurts", "hurting", "ache", "aches", "ached", "aching", "sore", "killing me", "swollen", "stiff",
          "acting up", "playing up", "bothering me", "giving me trouble", "giving me grief", "gave out", "giving out",
          "injured", "in pain", "in a brace", "in a cast")
# before it ("I sprained my ankle", "I pulled a hamstring")
_HARMS = ("hurt", "injured", "sprained", "twisted", "pulled", "strained", "broke", "tore", "bruised", "dislocated",
          "fractured", "tweaked", "jammed", "ruptured", "busted", "threw out", "put out")
# before the speaker's own part only ("running hurts my knees", "pain in my wrist")
_MINE_AFTER = ("hurts", "pain in", "injury in")
# after the part, as a noun ("knee pain")
_NOUNS = ("pain", "injury", "injuries")
_BACK_OUT = "threw my back out"


def _either(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(map(re.escape, words)) + ")"


_HURTS = (rf"\bmy {_BODY}(?:'s| is| are| was| were| has| have| had| been| still| really| always| "
          rf"kind of| so| a bit| gets?| keeps?)* {_either(_PAINS)}\b|"
          rf"\b{_either(_HARMS)} (?:my|a) {_BODY}\b|\b{_BACK_OUT}\b|"
          rf"\b{_either(_MINE_AFTER)} my {_BODY}\b|\b{_BODY} {_either(_NOUNS)}\b")
_HURT_WORDS = (*_PAINS, *_HARMS, *_MINE_AFTER, *_NOUNS, _BACK_OUT)
# each of _HURTS' readings says one of its words; a word that holds another is found by that one
_BODY_HURTING = Told(tuple(dict.fromkeys(word for word in _HURT_WORDS
                                         if not any(other != word and other in word for other in _HURT_WORDS))),
                     re.compile(_HURTS, re.IGNORECASE))


# Where the person lives, as they say it of their own: "I live in Porto", "I moved to Lisbon", "We relocated to
# Leeds", "I'm based in Berlin"; a place's name after it ("I moved to a new team" is no place). Said of the
# person's place, which "What city is she in?" asks for though no fact is filed from the line (an old one's
# was replaced, or none was drawn).
_LIVES = Told(("live", "living", "moved", "based", "relocated", "settled"),
              re.compile(r"\b(?:i|we)(?:'m|'ve|'re| am| are| have| had| been| just| recently| finally| now| still| "
                         r"currently| also| actually)* (?:live|living|moved|relocated|settled|based)(?: back| over)? "
                         r"(?:in|to) (?:the )?(?-i:[A-Z])", re.IGNORECASE))


# Where she comes from, not where she lives: "Which city is she a native of?", "What city was he born in?".
_FROM_THERE = r"\b(?:born|native|grew up|grow up|raised|originally|comes? from)\b|\bfrom\W*$"


def _own(keys: str) -> str:
    """The kind's keys alone or after a participant's name ("melanie_employer"), not a relative's."""
    return r"^(?!(?:.*_)?(?:" + "|".join(_THEIRS) + rf")_)(?:.*_)?(?:{keys})$"


# The words that name one thing, which a favourite is asked for by and filed under alike: likes.py keys a
# favourite by the user's own word ("My favourite film is Alien." files favorite_film, "movie" favorite_movie),
# the LLM by its own.
_SAME_THING = tuple(frozenset(words.split()) for words in (
    "film movie", "book novel", "food dish meal cuisine", "colour color", "song music band artist singer"))


def _favourite(thing: str) -> tuple[str, tuple[str, ...]]:
    """The keys of the favourite `thing` a question names (one word, "films"), in any of its words
    (favorite_movie for "film"), with a word before it or not ("show": favorite_tv_show), and their words.
    A plural names each word it may be of ("movies": movie, and movy, which its ending alone reads)."""
    said = {thing.casefold(), *stems(thing.casefold())}
    same = sorted(said.union(*(group for group in _SAME_THING if group & said)))
    return _own(rf"favorite_(?:[^_]+_)*(?:{'|'.join(map(re.escape, same))})s?"), tuple(same)


_KINDS = (
    _Kind(r"pets?|animals", _anyones(r"pet_"), ("pet",)),
    _Kind(r"hobby|hobbies|pastimes?|free time|spare time|leisure|for fun|interests",
          _anyones(r"(?:hobby|learning)$"), ("hobby", "learning")),
    _Kind(r"(?:health|medical) (?:conditions?|history|issues?|problems?)|health|illness(?:es)?",
          _anyones(r"(?:health_condition|allergy|surgery|injury)$"), ("health", "allergy", "surgery", "injury"),
          told=_BODY_HURTING),
    # an operation or an injury had: said of sport and medicine as often ("the most common football injury")
    _Kind(r"injur(?:y|ies)|surger(?:y|ies)", _anyones(r"(?:surgery|injury)$"), ("surgery", "injury"), of_someone=True,
          told=_BODY_HURTING),
    _Kind(r"diet|dietary restrictions?|foods?", _anyones(r"(?:dietary_restriction|allergy)$"), ("dietary", "allergy")),
    _Kind(r"family|families|relatives",
          _anyones("|".join(_FAMILY).join(("(?:", ")_")) + r"|(?:number_of_children|relationship_status)$"),
          (*_FAMILY, "children", "relationship")),
    # a partner, or being without one: "Is she married?", "Is the user single?", "Who is he dating?"
    _Kind(rf"{_PARTNERS}|significant others?|"
          r"other half|in a relationship|single|married|dating|seeing (?:anyone|anybody|someone|somebody)",
          _anyones(r"partner_|relationship_status$"), ("partner", "relationship"),
          leads=r"\b(?:dating|seeing|married to|engaged to|going out with) (?:a|an)\b|"
                rf"\b(?:{_PARTNERS}) (?:(?:is|was|are|were) )?(?:a|an)\b"),
    # something of the partner's, asked as theirs: "What's my partner's job?" is answered by "The user's wife
    # Anna is a nurse.", which says none of its words (nor does the job's kind read a relative's facts)
    _Kind(_WHOSE_PERSON + rf"(?:{_PARTNER})(?=['’]s\b)",
          _anyones(r"partner_"), ("partner",), ends=False),
    # children, or being a parent: "Any kids?", "Is he a dad?"; how many answers whether there are
    # any, and so before a child's name ("The user has 2 children." first for "Does she have kids?"),
    # unless a name or an age is asked for, or a son or a daughter: the count says neither, and comes
    # right after the child's fact ("What are her kids called?": "children" is "kids"' word, keywords.py)
    _Kind(r"kids?|children|child|sons?|daughters?|(?:a|an) (?:parent|mother|mom|mum|father|dad)",
          _anyones(r"child_|number_of_children$"), ("child", "children"), of_someone=True,
          first=_anyones(r"number_of_children$"),
          first_unless=r"\b(?:names?|called|named|who|old|ages?|sons?|daughters?|boys?|girls?)\b", else_after=True),
    # where one works, and as what: "Which company is she with?", "What's her line of work?", "Where
    # does she work?"; a job to come ("I start at Google next month.") right after the job she has.
    # Being a student, retired or out of work (employment_status) answers what she does as a job does.
    _Kind(r"compan(?:y|ies)|employers?|firm|workplace", _own("employer|next_job"), ("employer",), of_someone=True,
          own=True, after=_own("next_job")),
    # Asked for the job itself, the title answers before the employer ("What's her job?" after "I'm a
    # nurse now at St Mary's."), unless the question asks where or for whom
    # "work" as the noun: hers ("What's her work?") or what work ("What work does he do?"), not the verb
    _Kind(r"jobs?|occupation|profession|career|line of work|(?:her|his|their|my|your|user's) work|"
          r"what (?:kind of |sort of |type of )?work", _own("role|employer|next_job|employment_status"),
          ("role", "employer"), of_someone=True, own=True, first=_own("role"), first_unless=_WHERE_SHE_WORKS,
          after=_own("next_job")),
    # what she does, the question alone ("What do I do?", "What does she do for a living?"), not what
    # to do about something ("What do I do about my leaking tap?"), nor what a thing does ("What does
    # the company do?"); "you" and "they" ask about the agent or others as often
    _Kind(r"what (?:does|do) (?:i|she|he|the user) do(?: for (?:a living|work|money))?(?=\W*$)",
          _own("role|employer|next_job|employment_status"), ("role", "employer"), of_someone=True, own=True,
          first=_own("role"), first_unless=_WHERE_SHE_WORKS, after=_own("next_job")),
    _Kind(rf"where (?:does|do|is|are) {_WHO} work(?:s|ing)?|(?:does|do|is|are) {_WHO} work(?:s|ing)? (?:for|at)",
          _own("employer|next_job"), ("employer",), of_someone=True, own=True, after=_own("next_job")),
    # the job to come first: "What's her next job?", "Is he changing jobs?", "Where will she work
    # next?", "What job is he starting?", "Which company is she joining?"
    _Kind(r"(?:next|new|upcoming|future) (?:jobs?|roles?|positions?|employers?|compan(?:y|ies))|"
          r"(?:chang|switch)(?:e|es|ed|ing) (?:jobs|employers|companies)|(?:work|working) next|"
          rf"(?:jobs?|roles?|positions?|compan(?:y|ies)|employers?|firm) (?:is|are|will) {_WHO} (?:be )?"
          rf"(?:starting|taking|joining|moving to|start|take|join|move to)",
          _own("next_job"), ("next",), of_someone=True, own=True, first=_own("next_job")),
    # whom she lives with ("Who does he live with?"): her household, not where she lives
    # ("Does she live with her sister?" asks about her, the sister is the answer)
    _Kind(rf"(?:does|do|did) {WHO_OR_NAME} (?:still )?live (?:with|alone)|(?:is|are|am) {WHO_OR_NAME} living (?:with|alone)|"
          r"lives? with (?:her|him|them|me|you|the user)|(?:house|flat|room)mates?", _own("lives_with"), ("lives",),
          of_someone=True),
    # what she owns, and how she lives: her car ("Does she have a car?", "What does she drive?"), whether
    # she drives, a baby on the way ("Is she expecting?", "Is she pregnant?"), renting or owning her home,
    # her bank, what she saves for, the team she supports. "Expecting" alone only as the question's
    # last word ("What is she expecting from the meeting?" asks for none); a team only as supported or
    # a favourite ("What team is she on?" is her work's), named to the history by "team" alone ("favorite"
    # begins favorite_food too); said of the world too: asked of someone only.
    _Kind(r"cars?|vehicles?", _own("car|vehicle|drives"), ("car", "vehicle", "drives"), of_someone=True, own=True),
    _Kind(rf"what (?:car |vehicle )?(?:does|do|did) {WHO_OR_NAME} drive|(?:does|do|can) {WHO_OR_NAME} drive|"
          r"driving licen[cs]e|driver'?s licen[cs]e",
          _own("car|drives"), ("car", "drives"), of_someone=True, own=True),
    _Kind(r"expecting(?=\s*[?.!]|\s*$)|expecting (?:a baby|a child|twins)|pregnant|pregnancy|(?:a )?baby on the way",
          _own("expecting_baby"), ("expecting",), of_someone=True, own=True),
    _Kind(r"rent or own|own or rent|renting|rents|homeowner|own (?:her|his|their|my|your) (?:home|house|flat|apartment|place)",
          _own("housing"), ("housing",), of_someone=True, own=True),
    _Kind(r"(?:which|what) bank|banks? with", _own("bank"), ("bank",), of_someone=True, own=True),
    _Kind(r"saving (?:up )?for|savings goals?", _own("saving_for"), ("saving",), of_someone=True, own=True),
    _Kind(rf"(?:which|what) (?:\w+ )?teams? (?:does|do|did) {WHO_OR_NAME} (?:support|follow|root for|cheer for)|"
          rf"who (?:does|do|did) {WHO_OR_NAME} (?:support|root for)(?=\W*$)",
          _own("favorite_team"), ("team",), of_someone=True, own=True),
    # a favourite, of the thing asked for ("What's my favourite film?", "her fave band", "What kind of music
    # does she like best?"): its key's word (favorite_movie), which the question says, or another word for
    # it (_SAME_THING), while every favourite says "favourite", so MiniLM put "My favourite book is Dune."
    # first for the film. The thing is the noun that ends what the question names ("favourite football
    # team": team), after the kind of it ("favourite kind of music": music); not the least favourite.
    _Kind(r"(?<!least )(?:favou?rite|fave|fav) (?:(?:kind|type|sort|genre|style) of )?(?:[\w-]+ ){0,2}?(?P<thing>[\w-]+)",
          "", (), of_someone=True, own=True, of_thing=_favourite),
    _Kind(rf"(?:which|what) (?:(?:kind|type|sort|genre|style) of )?(?P<thing>[\w-]+) (?:do|does|did) {WHO_OR_NAME} "
          r"(?:like|love|enjoy|prefer)(?: the)? (?:best|most)",
          "", (), of_someone=True, own=True, of_thing=_favourite),
    # "Where's home for her?", not "in his home" nor "at home"; not where she comes from ("Which city is
    # she a native of?", "What city was he born in?")
    _Kind(rf"city|(?<!home )town|(?:where's|where is|calls?) home|home for|"
          rf"where(?:'s|'re| is| are| am| was) {_WHO} (?:currently |now |still )?based",
          _own("city"), ("city",),
          of_someone=True, own=True,
          unless=_FROM_THERE),
    # where she lives, as a frame asks it: "What city is she in?", "Which country does she live in?", "What town
    # is he based in?", "Where is she based?". The facts say none of the frame's words, and MiniLM put "The user's
    # employer is Feedzai." above "I moved to Lisbon and I work at Feedzai now." for it: her own lines saying where
    # she lives or moved to join the kind (_LIVES). Not "What city did she visit?" (the word "city" alone: the kind
    # above, without them), "What company is she in?", nor where she is from (the hometown's, below). "country"
    # names no key: the city she lives in answers it.
    _Kind(rf"(?:which|what) (?:city|town|country|state|part of the world) (?:(?:is|are|am) {_WHO} "
          rf"(?:currently |now |still )?(?:in|based|living|staying)|(?:does|do) {_WHO} (?:currently |now |still )?"
          rf"(?:live|stay))|where(?:'s|'re| is| are| am) {_WHO} (?:currently |now |still )?based",
          _own("city"), ("city",), of_someone=True, own=True, told=_LIVES,
          unless=_FROM_THERE),
    # where one is from: "What is her hometown?", "Where did she grow up?", "Where was he raised?",
    # "Which country is she from?" (no key says "country": her hometown or nationality answers it)
    _Kind(rf"hometown|home town|nationality|birthplace|place of birth|where (?:did|does|do) {_WHO} (?:grow|grew) up|"
          rf"raised|brought up|childhood|(?:comes?|came) from|originally|where (?:is|are|was|were) {_WHO} from|"
          rf"(?:which|what) country (?:is|are|was|were) {_WHO} from",
          _own("hometown|birthplace|nationality"), ("hometown", "birthplace", "nationality"), of_someone=True,
          own=True),
    _Kind(r"age(?!\s+of\b)|how old", _own("age"), ("age",), of_someone=True, own=True),
    # who the user is ("who am I?", "Who is the user?", "Do you know who I am?"): the name first, then
    # the person's own basics. The words end the clause: not whom she talks to ("Who am I talking
    # to?"), nor whom she is a fan of ("Who is the user a fan of?"), nor someone else ("Who is the
    # user's sister?", "Who is Anthony?")
    _Kind(r"who (?:am i|is the user|i am|the user is)(?=\s*(?:[?.!,;:]|$))", r"^(?:name|age|city|hometown|nationality|role|employer)$",
          ("name",), own=True, first=r"^name$"),
    # the person as a whole ("What do you know about me?", "Tell me about myself.", "What have I told
    # you about myself so far?"): every kind of their facts, the most important first. It names no
    # kind, so its words found nothing and the floor's gate let nothing through. Not the agent ("Tell
    # me about yourself"), nor a thing or someone else by name ("What do you know about Python?")
    _Kind(r"(?:know|remember|recall|learned|learnt|told you|said) about (?:me|myself|the user|her|him)(?: so far)?|"
          r"tell me about (?:me|myself|the user)|(?:describe|summari[sz]e) (?:me|myself|the user)",
          r".", ()),
    # a number to reach them at: "What's her number?", "How can I contact her?", not "call her" (a name)
    _Kind(r"(?:phone|mobile|cell)(?: number)?|e-?mail(?: address)?|contact (?:details|info|information)|"
          r"(?:her|his|their|my|your|user's) number|"
          r"(?:contact|reach|text|email|get in touch with) (?:her|him|them|me|the user)",
          _own(r"phone\w*|mobile\w*|email\w*|contact\w*"), ("phone", "mobile", "email"), of_someone=True, own=True),
    # the languages one speaks; "language" alone only when speaking is asked of ("What language is
    # this code in?" asks for none), and never how the user wants answers (preference_answer_language)
    _Kind(r"languages|(?:native|first|mother) (?:language|tongue)|language(?=[^?.!]*\bspeak)",
          r"(?<!answer_)language$", ("language",), of_someone=True),
    _Kind(r"nationalities|citizenships?|citizen", _own("nationality"), ("nationality",), of_someone=True, own=True),
    # schooling: not "to what degree", nor "a case study" (the verb only, asked of someone)
    _Kind(r"education|educational background|(?<!what )(?<!some )(?<!certain )degree|degrees(?= (?:does|do|did|has|have))|"
          r"qualifications?|alma mater|universit(?:y|ies)|college|uni|(?:go|went) to school|"
          r"(?:did|does|do) (?:\w+ ){1,2}study|majors?|majored", r"(?:school|degree|field_of_study)$", ("school", "degree", "study"), of_someone=True,
          first=r"(?:field_of_study|degree)$", first_unless=_WHICH_SCHOOL + _NO_SUBJECT),
    # being a student: "Is she studying?", "Am I in school?", "Is he a student?", which the work status
    # answers too ("I'm a student at Yale." files the status and the school); and what she studies
    # ("What's he studying?", "What's her major?" above), by the field or the degree first. Not a
    # school open or closed, nor what children study ("What are kids studying in school these days?"):
    # asked of someone only.
    _Kind(rf"(?:{_IS} {WHO_OR_NAME}|{_WHO} ?{_IS}) (?:still )?(?:a|an) (?:[\w-]+ )?student|"
          rf"{_IS} {_WHO} (?:still )?(?:studying|(?:in|at) school|at {_UNI})|"
          rf"(?:does|do|did) {_WHO} (?:still )?(?:study|go to (?:school|{_UNI}))",
          r"(?:school|degree|field_of_study)$|" + _own("employment_status"), ("school", "degree", "study"),
          of_someone=True),
    _Kind(rf"what(?: [\w-]+)?(?: is| are| am| was|'s|'re|'m) {_WHO} (?:still )?studying|"
          rf"what(?: [\w-]+)? (?:does|do|did) {_WHO} study", r"(?:school|degree|field_of_study)$",
          ("school", "degree", "study"), of_someone=True, first=r"(?:field_of_study|degree)$",
          first_unless=_WHICH_SCHOOL),
    # The items of a list, each filed under its kind when it was said (offline/rules/pastimes.py's "things done, read
    # and played"): "What activities has she done with her family?" (outings and pastimes), "What
    # sports does he like?" and "What instruments does she play?" (pastimes: "I play tennis", "I go
    # surfing"), "What video games does he play?", "What books has she read?". Said of the world too
    # ("What sports are in the Olympics?"): asked of someone only.
    _Kind(r"activities", _anyones(r"(?:activity|hobby)$"), ("activity", "hobby"), of_someone=True),
    _Kind(r"sports?|(?:musical )?instruments?", _anyones(r"(?:hobby|activity)$"), ("hobby", "activity"),
          of_someone=True),
    _Kind(r"(?:video |computer |board )?games", _anyones(r"(?:game|hobby)$"), ("game", "hobby"), of_someone=True),
    _Kind(r"books|novels", _anyones(r"book$"), ("book",), of_someone=True),
    # the grandparents, a word none of their facts says ("Tell me about my grandparents.")
    _Kind(_WHOSE_PERSON + r"grandparents?", _anyones("|".join(vocabulary.GRANDPARENTS).join(("(?:", ")_"))),
          vocabulary.GRANDPARENTS),
    # someone in the person's life beside the relatives the kinds above name, asked about as hers ("Where does
    # my boss live?", "What does my cousin do?"): their facts, not her own that the question's frame is as
    # near ("The user lives in Chicago.")
    *(_Kind(_WHOSE_PERSON + "(?:" + "|".join(sorted((rf"{re.escape(word)}(?:e?s)?" for word, kind in
                                                     vocabulary.PEOPLE.items() if kind == part), key=len,
                                                    reverse=True)) + ")",
            _anyones(rf"{part}_"), (part,)) for part in sorted(set(vocabulary.PEOPLE.values()))),
)
# The kind's word ends what the question names: punctuation follows it, or a word that is no noun (a
# verb, a pronoun, "anyone", a preposition...), not a noun it qualifies ("a pet peeve", "health care", "a family
# business", "mental health services", "a vegan diet group").
_ENDS = (r"(?=\s*(?:[?.!,;:)]|$)|\s+(?:does|do|did|is|are|was|were|has|have|had|should|can|could|would|will|"
         r"might|must|may|i|you|he|she|it|we|they|the|a|an|my|your|his|her|their|our|in|of|for|at|on|with|"
         r"from|to|that|which|who|and|or|but|like|members?|lately|now|these|those|this|recently|"
         r"lives?|live|eats?|needs?|makes?|gets?|keeps?|stays?|belongs?|next|soon|called|named|"
         r"anyone|anybody|someone|somebody|no one|nobody)\b)")
_ASKED = [(re.compile(rf"\b(?:{kind.words}){_ENDS if kind.ends else ''}", re.IGNORECASE), kind,
           re.compile(rf"^\W*(?:(?:any|and|what about|how about)\s+)?(?:{kind.words})\W*$", re.IGNORECASE),
           re.compile(kind.unless, re.IGNORECASE) if kind.unless else None)
          for kind in _KINDS]
# Someone a question asks about: a pronoun, "the user", someone's name ("Nadia's", "does Nadia ...";
# not "What's").
_SOMEONE = re.compile(r"\b(?:i|me|my|mine|you|your|she|her|hers|he|him|his|they|them|their|we|us|our|user)\b"
                      r"|\b(?!(?:what|who|where|when|why|how|which|that|it|there|here|let)'s)(?-i:[A-Z])[a-z]+'s\b"
                      r"|\b(?:is|are|does|did|has|was|do|can|will|would)\s+(?-i:[A-Z])[a-z]+\b", re.IGNORECASE)
# Someone in the person's life, by their place in it (the offline rules' words: "my sister", "her boss").
_OTHERS = people.NAMES_A_PERSON


def names_others(question: str) -> bool:
    """Whether `question` names someone in the person's life by their place in it ("her boyfriend",
    "my sister")."""
    return bool(_OTHERS.search(question))


def asked(question: str) -> Topic | None:
    """The kinds of fact `question` names, None when it names none."""
    words: set[str] = set()
    keys: list[str] = []
    key_words: list[str] = []
    first: list[str] = []
    after: list[str] = []
    lead = False
    told: list[Told] = []
    someone, others = bool(_SOMEONE.search(question)), bool(_OTHERS.search(question))
    for pattern, kind, alone, unless in _ASKED:
        said = list(pattern.finditer(question))
        if said and (not kind.of_someone or someone or alone.match(question)) and not (kind.own and others) \
                and not (unless and unless.search(question)):
            words.update(match[0].casefold() for match in said)
            for kind_keys, kind_key_words in ([kind.of_thing(match["thing"]) for match in said] if kind.of_thing
                                              else [(kind.keys, kind.key_words)]):
                keys.append(kind_keys)
                key_words.extend(kind_key_words)
            if kind.first and not (kind.first_unless and re.search(kind.first_unless, question, re.IGNORECASE)):
                first.append(kind.first)
            elif kind.first and kind.else_after:
                after.append(kind.first)
            if kind.after:
                after.append(kind.after)
            lead = lead or bool(kind.leads and re.search(kind.leads, question, re.IGNORECASE))
            # what the person said of their own body, not of someone in their life the question asks about
            if kind.told and not others:
                told.append(kind.told)
    if not keys:
        return None
    return Topic(frozenset(words), "|".join(dict.fromkeys(keys)), tuple(dict.fromkeys(key_words)),
                 "|".join(dict.fromkeys(first)) or None, "|".join(dict.fromkeys(after)) or None, lead,
                 tuple(dict.fromkeys(told)))


def tells(topic: Topic, content: str) -> bool:
    """Whether a memory's `content` tells of the question's kinds in words no fact was filed under
    (the body hurting, for "any injuries?")."""
    return any(told.of(content) for told in topic.told)


def ordered(topic: Topic, scored: list[Scored], keys: dict[str, str]) -> list[Scored]:
    """`scored` (best first) with the facts of the question's kinds (`keys`: their ids and keys) in
    the kinds' order: a fact that answers before the others (`first`; of a key both name, first) and
    is ranked below the best of them comes just above it, one that comes after them (`after`) right
    below it, wherever it was ranked; each with that fact's score (the list stays in score order) and
    `score_parts.kind_order` saying which. The rest keep their places; without another fact of the
    kinds, nothing moves. A topic that `lead`s has its kinds' facts first of all, in their order, with
    the first result's score and `kind_order` "lead", before the rest."""
    if topic.lead:
        scored = _leading(scored, keys)
    first = re.compile(topic.first) if topic.first else None
    after = re.compile(topic.after) if topic.after else None
    if first is None and after is None:
        return scored

    def placed(entry: Scored) -> str | None:
        key = keys.get(entry[0])
        if key is None:
            return None
        if first is not None and first.search(key):
            return "first"
        return "after" if after is not None and after.search(key) else None

    others = [entry for entry in scored if entry[0] in keys and placed(entry) is None]
    if not others:
        return scored
    best = others[0][0]
    at = next(i for i, entry in enumerate(scored) if entry[0] == best)
    above = [entry for entry in scored[at + 1:] if placed(entry) == "first"]
    below = [entry for entry in scored if placed(entry) == "after"]
    if not above and not below:
        return scored
    moved = {entry[0] for entry in above + below}
    score = scored[at][1]

    def at_best(entries: list[Scored], place: str) -> list[Scored]:
        return [(item, score, {**parts, "score": score, "kind_order": place}) for item, _, parts in entries]

    return ([entry for entry in scored[:at] if entry[0] not in moved] + at_best(above, "first") + [scored[at]]
            + at_best(below, "after") + [entry for entry in scored[at + 1:] if entry[0] not in moved])


def _leading(scored: list[Scored], keys: dict[str, str]) -> list[Scored]:
    """`scored` with the facts of `keys` first, at the first result's score."""
    lead = [entry for entry in scored if entry[0] in keys]
    if not lead or scored[:len(lead)] == lead:
        return scored
    score = scored[0][1]
    return ([(item, score, {**parts, "score": score, "kind_order": "lead"}) for item, _, parts in lead]
            + [entry for entry in scored if entry[0] not in keys])
