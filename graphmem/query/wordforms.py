"""English word forms as the question compiler matches them: tokens, singulars and verb tenses,
one-word synonyms, and where a name's words sit among a question's words.

Closed-class English (irregular pasts, function words, particles), never an environment's vocabulary.

>>> "quarry" in morph_forms("quarried")
True
>>> contiguous(["door", "to", "foundry"], words("the door to the foundry"))
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from graphmem.nlp import verb_words
from graphmem.query.synonyms import synonyms

# Irregular English past forms (closed class: the language's, not an environment's).
# fmt: off
IRREGULAR = {
    "slew": "slay", "slain": "slay", "ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink",
    "got": "get", "gotten": "get", "made": "make", "built": "build", "took": "take", "taken": "take",
    "slept": "sleep", "woke": "wake", "woken": "wake", "awoke": "wake", "went": "go", "gone": "go",
    "came": "come", "fought": "fight", "beaten": "beat", "dug": "dig", "lost": "lose", "spent": "spend",
    "caught": "catch", "held": "hold", "had": "have", "has": "have", "fell": "fall", "fallen": "fall",
    "ran": "run", "kept": "keep", "did": "do", "done": "do", "met": "meet", "hid": "hide", "shot": "shoot",
    "struck": "strike", "threw": "throw", "thrown": "throw", "put": "put", "set": "set", "cut": "cut",
    "hit": "hit", "left": "leave", "found": "find", "brought": "bring", "bought": "buy", "saw": "see",
    "seen": "see", "wrote": "write", "written": "write", "read": "read", "sat": "sit", "stood": "stand",
    "drove": "drive", "rode": "ride", "froze": "freeze", "frozen": "freeze", "broke": "break",
    "broken": "break", "chose": "choose", "drew": "draw", "grew": "grow", "grown": "grow", "knew": "know",
    "began": "begin", "begun": "begin", "swam": "swim", "ground": "grind", "won": "win", "led": "lead",
    "fed": "feed", "bit": "bite", "bitten": "bite", "rose": "rise", "risen": "rise", "lit": "light",
    "shut": "shut", "sent": "send", "told": "tell", "said": "say", "paid": "pay", "laid": "lay",
    # nouns of events whose verb they do not spell: "my first death", "the second entry"
    "death": "die", "deaths": "die", "entry": "enter", "entries": "enter", "sale": "sell", "loss": "lose",
    "sight": "see", "flight": "fly", "choice": "choose", "birth": "bear", "growth": "grow", "theft": "steal",
    "delivery": "deliver", "deliveries": "deliver", "discovery": "discover", "discoveries": "discover",
    "recovery": "recover", "arrival": "arrive", "arrivals": "arrive", "departure": "depart", "failure": "fail",
    "failures": "fail", "purchase": "purchase", "refusal": "refuse", "removal": "remove",
}
# fmt: on

#: Words that never name an event's kind or object: function words, subjects, and the vocabulary of the
#: questions themselves (steps, times, counts).
# fmt: off
FUNCTION_WORDS = frozenset({
    "i", "me", "my", "myself", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his",
    "she", "her", "it", "its", "they", "them", "their", "agent", "player", "bot", "robot", "character",
    "the", "a", "an", "some", "any", "this", "that", "these", "those", "of", "to", "in", "into", "on", "onto",
    "at", "for", "with", "from", "by", "up", "down", "out", "off", "over", "about", "around", "through",
    "and", "or", "but", "so", "then", "than", "did", "do", "does", "done", "doing", "have", "has", "had",
    "having", "was", "were", "is", "are", "be", "been", "being", "am", "will", "would", "could", "should",
    "can", "may", "might", "must", "shall", "ever", "never", "not", "no", "yet", "already", "just", "also",
    "again", "time", "times", "step", "steps", "timestep", "timesteps", "moves", "turns",
    "moment", "occasion", "instance", "point", "thing", "things", "something", "anything", "item", "items",
    "stuff", "object", "objects", "one", "ones", "what", "which", "who", "whom", "when", "where", "how",
    "why", "whether", "there", "here", "many", "much", "often", "number", "count", "total", "all", "each",
    "every", "very", "really", "actually", "first", "last", "next", "previous", "final", "latest", "recent",
    "recently", "most", "successfully", "finally", "once", "twice", "manage", "managed",
    "happen", "happened", "occur", "occurred", "episode", "game", "trajectory", "ago", "right",
    "immediately", "directly", "exactly", "later", "earlier", "before", "after", "more", "less", "quite",
    "still", "only", "between", "until", "till", "since", "during", "within", "while", "without", "across",
    "along", "among", "against", "toward", "towards", "beyond", "above", "below", "under", "soon", "precisely", "least", "whole",
    "entire", "altogether", "overall", "separate", "different", "another", "other", "else", "same",
    "whenever", "wherever", "somewhere", "anywhere", "everything", "nothing", "someone", "ord",
    "lower", "higher", "greater", "fewer", "bigger", "smaller", "amount", "level", "value", "list",
})
# fmt: on
#: English category nouns: "made a tool", "killed a monster", "entered a zone" name the kind of event,
#: not one object, unless the memory holds an object of that very name.
CATEGORY_NOUNS = frozenset({
    "thing", "things", "item", "items", "object", "objects", "stuff", "tool", "tools", "resource", "resources",
    "material", "materials", "creature", "creatures", "monster", "monsters", "enemy", "enemies", "mob", "mobs",
    "animal", "animals", "beast", "food", "meal", "snack", "zone", "zones", "area", "areas", "region", "regions",
    "sector", "sectors", "room", "rooms", "place", "places", "location", "locations", "spot", "container",
    "containers", "receptacle", "weapon", "weapons", "structure", "building", "equipment", "gear", "device",
    "substance", "ingredient", "page", "site", "file", "files", "action", "task", "achievement", "achievements",
    "command", "commands", "attempt", "attempts",
    "target", "destination", "something", "anything", "everything", "one", "button", "buttons", "link", "links",
    "tab", "tabs", "field", "fields", "window", "windows", "document", "message", "messages", "record", "entry",
    "plant", "plants", "vessel", "appliance", "furniture", "surface", "door", "doors",
})
#: Category nouns of places: the memory's regions say which events went to one.
LOCATION_NOUNS = frozenset({
    "zone", "zones", "area", "areas", "region", "regions", "sector", "sectors", "room", "rooms", "place", "places",
    "location", "locations", "spot", "site", "square", "cell", "part", "chamber", "space",
})
#: Verbs so generic that only their object says what happened ("got wood", "did the table").
LIGHT_VERBS = frozenset({"get", "go", "do", "have", "come", "take", "manage", "try", "start", "finish", "end"})


def singular_forms(word: str) -> set[str]:
    """Every plausible singular: over-generating is harmless when matching against a vocabulary.

    >>> sorted(singular_forms("berries"))
    ['berrie', 'berries', 'berry']
    """
    out = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        out.add(word[:-1])
    if len(word) > 4 and word.endswith("es") and word.endswith(("sses", "xes", "ches", "shes", "zes", "oes")):
        out.add(word[:-2])
    if len(word) > 4 and word.endswith("ies"):
        out.add(word[:-3] + "y")
    return out


def verb_forms(word: str) -> set[str]:
    """Cheap inflection stripping: ``chopped -> chop``, ``carried -> carry``, ``making -> make``.

    >>> {"chop", "quarry", "make"} <= verb_forms("chopped") | verb_forms("quarried") | verb_forms("making")
    True
    """
    out = {word}
    if word in IRREGULAR:
        out.add(IRREGULAR[word])
    if word.endswith("ying") and len(word) >= 5:
        out.add(word[:-4] + "ie")  # dying -> die, tying -> tie
    for suffix in ("ed", "ing", "d"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            out.update({stem, stem + "e"})
            if len(stem) > 2 and stem[-1] == stem[-2]:
                out.add(stem[:-1])
            if stem.endswith("i"):
                out.add(stem[:-1] + "y")
    if word.endswith("s") and len(word) > 3:
        out.update(singular_forms(word))
    # the noun of an action names its verb: placement -> place, arrival -> arrive, collection -> collect
    for suffix, ends in (("ments", ("", "e")), ("ment", ("", "e")), ("als", ("e", "")), ("al", ("e", "")),
                         ("ions", ("", "e")), ("ion", ("", "e")), ("ings", ("", "e"))):
        if word.endswith(suffix) and len(word) > len(suffix) + 3:
            out.update(word[: -len(suffix)] + end for end in ends)
            break
    return out


@functools.lru_cache(maxsize=65536)
def morph_forms(word: str) -> frozenset[str]:
    """The forms a word's morphology allows: verb stems, singulars, and the noun of a material
    adjective ("wooden" -> wood, "golden" -> gold)."""
    out = verb_forms(word) | singular_forms(word)
    if len(word) > 5 and word.endswith("en"):
        out.add(word[:-2])
    return frozenset(out)


@functools.lru_cache(maxsize=65536)
def forms(word: str) -> frozenset[str]:
    """Every form a word may stand for: its morphological forms and their one-word synonyms."""
    out = set(morph_forms(word))
    for base in list(out):
        out |= synonyms(base)
    return frozenset(out)


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lower-case word tokens (underscores and hyphens split words: ``wood_pickaxe`` -> wood, pickaxe)."""
    return _WORD.findall(text.lower().replace("_", " ").replace("-", " "))


def content_words(tokens: Iterable[str]) -> list[str]:
    return [w for w in tokens if w not in FUNCTION_WORDS and not w.isdigit()]


def name_words(tokens: Sequence[str]) -> list[str]:
    """Content words with the numbers that belong to a name: "cabinet 4", "bug 276" keep their digits
    (a digit right after a content word), "3 times" and "step 40" do not."""
    out: list[str] = []
    for i, w in enumerate(tokens):
        if w in FUNCTION_WORDS:
            continue
        if w.isdigit() and not (i > 0 and tokens[i - 1] not in FUNCTION_WORDS and not tokens[i - 1].isdigit()
                                and tokens[i - 1] not in _COUNTED):
            continue
        out.append(w)
    return out


#: Words a number after which is a count or a step, not part of a name.
_COUNTED = frozenset({"step", "steps", "times", "ord", "reached", "hit", "to", "least", "most", "exactly", "than"})


def digits_agree(name: str, tokens: Sequence[str]) -> bool:
    """Whether every number in a stored name is one the question says: "cabinet 4" is never "cabinet 1"."""
    need = [w for w in words(name) if any(c.isdigit() for c in w)]
    return all(w in tokens for w in need)


def covers(name_words: Sequence[str], question_forms: Sequence[frozenset[str]], strict: bool = False) -> float:
    """The share of a name's words that some question word is a form of (``strict``: by morphology
    alone, no synonyms; the question forms must then be :func:`morph_forms` too)."""
    if not name_words:
        return 0.0
    of = morph_forms if strict else forms
    hit = sum(1 for w in name_words if any(w in f or (of(w) & f) for f in question_forms))
    return hit / len(name_words)


_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "it", "they", "me", "us", "him", "them", "my", "our", "your",
                       "its", "their", "the", "a", "an", "agent", "player", "did", "do", "does", "was", "were", "had",
                       "have", "has", "ever", "any", "some"})


PARTICLES = frozenset({"up", "down", "off", "out", "on", "in", "into", "away", "over", "back", "onto", "through"})


_PASSIVE_AUX = r"\b(?:got|get|gets|getting|gotten|was|were|been|being|be)"
_PASSIVE_KILLED = re.compile(rf"{_PASSIVE_AUX} (?:killed|slain|murdered|defeated|eaten)\b")
_PASSIVE_HURT = re.compile(rf"{_PASSIVE_AUX} (?:hit|struck|attacked|bitten|shot|hurt|injured|wounded|damaged|harmed|punched|clawed|stung|burned|burnt)\b")


_TAKE_IDIOM = re.compile(r"\b(?:got|get|gets|getting|gotten|grabbed|took|laid) (?:a )?(?:hold of|hands on|possession of)\b")


def active_voice(text: str) -> str:
    """The agent as the one it happened to: "got hit by a zombie" is being hurt by it, not hitting it;
    "was killed by an arrow" is dying of it.

    >>> active_voice("i got hit by a zombie"), active_voice("we were killed")
    ('i get hurt by a zombie', 'we die')
    """
    text = _PASSIVE_KILLED.sub("die", text)
    text = _TAKE_IDIOM.sub("take", text)  # "got hold of the scarf": took it
    return _PASSIVE_HURT.sub("get hurt", text)


#: Prepositions that end a noun phrase's head: "the score in the current game" is a score.
HEAD_ENDS = frozenset({"of", "in", "for", "during", "on", "at", "within"})
_THING_WORDS = frozenset({"item", "items", "thing", "things", "something", "anything", "stuff", "object", "objects"})
_PLACE_PREPOSITIONS = frozenset({"on", "onto", "in", "into", "inside", "at", "under", "near", "from", "to", "toward", "towards", "with", "beside", "behind"})


def before_place_phrase(tokens: Sequence[str], words_after_verb: Sequence[str]) -> list[str]:
    """The words after the verb up to a prepositional phrase that follows its object: in "dropped an
    item on the floor" the floor is where, not what; "went into the kitchen" keeps the kitchen."""
    candidates = set(words_after_verb)
    verbs = verb_words(" ".join(tokens))
    seen_verb = seen_noun = False
    for i, w in enumerate(tokens):
        if w in _PLACE_PREPOSITIONS and seen_noun:
            before = set(tokens[:i])
            return [x for x in words_after_verb if x in before]
        if w in FUNCTION_WORDS and w not in _THING_WORDS:
            continue
        if not seen_verb and (w in verbs or not seen_noun):
            seen_verb = True  # the first content word is the verb ("walk into a room")
            continue
        if (w in candidates and nounish(w)) or w in _THING_WORDS:
            seen_noun = True
    return list(words_after_verb)


def phrase_words(tokens: Sequence[str]) -> list[str]:
    """The words of a verb phrase for embedding: without subjects, articles, auxiliaries and other
    function words, but with its particles ("get up", "put down")."""
    return [w for w in tokens if w not in _SUBJECTS and not w.startswith("ord_") and not w.isdigit()
            and (w not in FUNCTION_WORDS or w in PARTICLES)]


def nounish(word: str) -> bool:
    """Whether a content word may be a noun: not an inflected verb form, adverb or preposition."""
    return len(word) > 2 and word not in IRREGULAR and word not in LIGHT_VERBS and not word.endswith(("ly", "ing", "ed"))


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_forms(name: str, strict: bool = False) -> frozenset[str]:
    """Every form of every word of a name (``strict``: by morphology alone, no synonyms)."""
    of = morph_forms if strict else forms
    out: set[str] = set()
    for w in words(name):
        out |= of(w)
    return frozenset(out)


def said_outside(kind_words: Sequence[str], tokens: Sequence[str], obj_words: Sequence[str]) -> bool:
    """Whether a word of the kind is said outside the object's name in the tokens (True when nothing but
    the name is said: "woke up" may still name the kind "wake up")."""
    n = len(obj_words)
    spans = [i for i in range(len(tokens) - n + 1) if all(obj_words[j] in morph_forms(tokens[i + j]) for j in range(n))]
    if not spans:
        return True
    outside = [t for i, t in enumerate(tokens) if not any(s <= i < s + n for s in spans)]
    if not content_words([t for t in outside if t not in LIGHT_VERBS]):
        return True
    return covers(list(kind_words), [forms(w) for w in outside]) > 0




def contiguous(name_words: Sequence[str], tokens: Sequence[str], strict: bool = False) -> bool:
    """Whether the name's words appear in order as neighbouring tokens (forms allowed; articles and
    prepositions do not count on either side: "the door to the foundry" names "door to foundry")."""
    content_name = [w for w in name_words if w not in FUNCTION_WORDS]
    if content_name and (len(content_name) < len(name_words) or any(w in FUNCTION_WORDS for w in tokens)):
        name_words = content_name
        tokens = [w for w in tokens if w not in FUNCTION_WORDS]
    n = len(name_words)
    of = morph_forms if strict else forms
    for i in range(len(tokens) - n + 1):
        if all(name_words[j] in of(tokens[i + j]) or of(name_words[j]) & of(tokens[i + j]) for j in range(n)):
            return True
    return False


def near(name_words: Sequence[str], tokens: Sequence[str], strict: bool = False) -> bool:
    """Whether every content word of a name appears among the tokens, in any order, within a span one
    word longer than the name ("the bedroom door" names "door to the bedroom")."""
    of = morph_forms if strict else forms
    need = [w for w in name_words if w not in FUNCTION_WORDS] or list(name_words)
    toks = [t for t in tokens if t not in FUNCTION_WORDS]
    hits = [i for i, t in enumerate(toks) if any(w in of(t) or of(w) & of(t) for w in need)]
    for start in hits:
        span = toks[start: start + len(need) + 1]
        if all(any(w in of(t) or of(w) & of(t) for t in span) for w in need):
            return True
    return False


def longest_name(names: Iterable[str], tokens: Sequence[str], strict: bool = False) -> str | None:
    """The longest stored name whose words all appear together (in order first, then in any order
    within a short span); a lone head word ("pickaxe") of several multi-word names matches none of them
    (the memory, not a word list, must say which)."""
    best: str | None = None
    names = sorted(names)
    for name in names:
        nw = words(name)
        if nw and contiguous(nw, tokens, strict) and (best is None or len(nw) > len(words(best))):
            best = name
    if best is not None:
        return best
    for name in names:
        nw = words(name)
        if len(nw) > 1 and near(nw, tokens, strict) and (best is None or len(nw) > len(words(best))):
            best = name
    return best


def said_together(kind: Sequence[str], tokens: Sequence[str]) -> bool:
    """The kind's words said one after another as written, particles included ("turn on the lighter",
    not "switched the stopwatch off")."""
    n = len(kind)
    return any(all(kind[j] in morph_forms(tokens[i + j]) for j in range(n)) for i in range(len(tokens) - n + 1))


def unheld_compound(content: Sequence[str], obj: str | None, objects: set[str], tokens: Sequence[str]) -> tuple[str, str] | None:
    """("stone pickaxe", "pickaxe") when the words say a held one-word ``obj`` right before the head noun
    of held multi-word names ("wood pickaxe") but the memory holds no such compound."""
    if obj is None or len(words(obj)) != 1 or obj not in content:
        return None
    at = content.index(obj)
    head = content[at + 1] if at + 1 < len(content) else None
    if head is None or f"{obj} {head}" in objects or not said_together([obj, head], tokens) or not any(len(words(o)) > 1 and words(o)[-1] == head for o in objects):
        return None
    return f"{obj} {head}", head


def after_the_thing(phrase: Sequence[str], obj: str | None) -> Sequence[str]:
    """The words after the thing the phrase is about (its object, or "something"): where a place word
    says where the thing went ("put the cd on a table"), not a particle of the verb ("dropped off")."""
    marks = set(words(obj)) if obj else {"something", "it", "anything", "them", "thing", "things", "stuff", "everything"}
    at = max((i for i, w in enumerate(phrase) if w in marks or (obj and forms(w) & name_forms(obj))), default=None)
    return phrase[at + 1:] if at is not None else ()


def said_words(kind: str) -> list[str]:
    """The words of a kind a question must say: "fail to open" is said by "failed ... open"."""
    return [w for w in words(kind) if w not in FUNCTION_WORDS or w in PARTICLES] or words(kind)
