"""A small English thesaurus of one-word synonyms for what agents do and track.

The sentence model graphmem ships reads phrases well and single words poorly: "energy" sits nearer
"health" than "stamina", "hp" near nothing. Questions name an agent's state values and actions by
everyday synonyms, so the lexicon treats the words of one group as forms of each other when it matches
a question's words against the names the memory holds. The groups are general English (no
environment's vocabulary); each word stands for the others only where the memory holds one of them,
and only in the names of kinds, states and items: an event's object is matched as written.

>>> sorted(synonyms("hp"))
['health', 'hitpoints', 'hp', 'vitality']
>>> synonyms("table")
frozenset()
"""

from __future__ import annotations

# fmt: off
GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    # quantities an agent tracks
    "health hp hitpoints vitality",
    "energy stamina fatigue tiredness vigor",
    "hunger food satiety fullness nourishment stomach belly",
    "thirst drink hydration",
    "money cash funds balance",
    "score points point",
    "total overall cumulative aggregate combined",
    "goal objective aim mission quest task chore job assignment errand",
    "phase stage",
    "brightness bright daylight sunlight light",
    "temperature temp",
    "level lvl",
    "speed velocity",
    "position coordinates coords",
    # materials and things
    "wood timber lumber log",
    "stone rock cobblestone cobble",
    "workbench bench",
    "sapling seedling",
    "meat beef steak",
    "bag backpack knapsack satchel pack rucksack",
    "error exception failure",
    "message mail email",
    "page webpage",
    "website site",
    "door doorway",
    # actions
    "die perish expire",
    "sleep doze nap slumber snooze asleep",
    "wake awaken waken",
    "attack hit strike punch smack whack",
    "kill slay defeat destroy vanquish",
    "take grab pick obtain acquire snatch seize",
    "collect gather harvest",
    "drop discard ditch dump toss jettison",
    "make craft create forge fabricate",
    "build construct erect",
    "place put set lay",
    "close shut",
    "enter reach",
    "leave exit depart",
    "eat consume devour munch nibble chew",
    "taste sample savor",
    "burn char scorch",
    "switch turn flip",
    "examine inspect scrutinize study investigate",
    "look glance survey scan peek",
    "search query google",
    "buy purchase",
    "pay spend",
    "send transmit",
    "edit modify",
    "delete remove erase",
    "heat warm",
    "cool chill refrigerate",
    "cut slice chop hew",
    "clean wash rinse scrub",
    "start begin launch commence",
    "finish complete accomplish clear done finished completed",
    "fail flunk botch bungle fumble",
    "refuse reject decline deny rebuff",
    "retry redo",
    "wait pause idle linger",
    "activate enable",
    "deactivate disable",
    "connect attach link hook",
    "disconnect detach unlink",
    "mine quarry dig excavate extract",
    "drink sip gulp quaff",
    "walk stroll",
    "read peruse",
    "talk speak chat",
    "unlock unbolt unlatch",
    "lock bolt latch",
    "plant sow",
    "pour decant",
    "mix blend combine",
    "hurt injure wound harm",
    "heal recover regenerate",
    "respawn revive resurrect",
    "water irrigate",
    "map chart",
))
# fmt: on

_BY_WORD: dict[str, frozenset[str]] = {}
for _group in GROUPS:
    for _word in _group:
        _BY_WORD[_word] = _BY_WORD.get(_word, frozenset()) | _group


def synonyms(word: str) -> frozenset[str]:
    """The words one of the groups says ``word`` may stand for (``word`` included; empty: none)."""
    return _BY_WORD.get(word, frozenset())
