"""Question generator: gold answers against an independent brute-force recomputation, and the round
trip parse_anchors -> execute over the full episode as evidence."""

from __future__ import annotations

import ast
import random
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from graphmem.recall.anchors import parse_anchors, vocabulary_from_steps
from graphmem.recall.executor import bundle_from_steps, execute, normalize_answer
from graphmem.recall.questions import FAMILIES, TEMPLATES, GeneratedQuestion, generate_questions
from graphmem.records import Event, Location, Relation, Step, validate_steps

# --------------------------------------------------------------------------------------------------
# A hand-built trajectory: scripted, seeded, with caps so that "collect" and "gain" ordinals diverge
# --------------------------------------------------------------------------------------------------

CAP = 4


def toy_steps(seed: int = 0, n: int = 160) -> list[Step]:
    rng = random.Random(seed)
    inv: Counter[str] = Counter()
    health, food, energy = 9, 9, 9
    region = "grassland"
    table = False
    sleeping = False
    steps: list[Step] = []
    for t in range(n):
        events: list[Event] = []
        before = Counter(inv)
        facing = "grass"
        if sleeping:
            action = "sleep"
            energy = min(9, energy + 1)
            if energy == 9 or rng.random() < 0.3:
                sleeping = False
                events.append(Event("wake", ""))
        else:
            choice = rng.choice(
                [
                    "move",
                    "move",
                    "wood",
                    "wood",
                    "sapling",
                    "stone",
                    "table",
                    "pickaxe",
                    "drink",
                    "cow",
                    "zombie",
                    "hurt",
                    "sleep",
                ]
            )
            action = "noop"
            if choice == "move":
                action = rng.choice(["move left", "move right", "move up", "move down"])
                if rng.random() < 0.35:
                    new = rng.choice(["grassland", "forest", "lake", "cave"])
                    if new != region:
                        region = new
                        events.append(Event("visit", region))
            elif choice == "wood":
                action, facing = "do (collect wood)", "tree"
                events.append(Event("collect", "wood"))
                inv["wood"] = min(CAP, inv["wood"] + 1)
            elif choice == "sapling":
                action = "do (collect sapling)"
                events.append(Event("collect", "sapling"))
                inv["sapling"] = min(CAP, inv["sapling"] + 1)
            elif choice == "stone" and inv["wood pickaxe"]:
                action, facing = "do (collect stone)", "stone"
                events.append(Event("collect", "stone"))
                inv["stone"] = min(CAP, inv["stone"] + 1)
            elif choice == "table" and inv["wood"] >= 2:
                action, facing = "place table", "table"
                events += [Event("place", "table"), Event("consume", "wood", 2)]
                inv["wood"] -= 2
                table = True
            elif choice == "pickaxe" and table and inv["wood"] >= 1:
                action = "make wood pickaxe"
                events += [Event("make", "wood pickaxe"), Event("consume", "wood")]
                inv["wood"] -= 1
                inv["wood pickaxe"] = min(CAP, inv["wood pickaxe"] + 1)
            elif choice == "drink":
                action, facing = "do (drink water)", "water"
                events.append(Event("drink", "water"))
            elif choice == "cow":
                action, facing = "do (eat cow)", "cow"
                events += [Event("eat", "cow"), Event("defeat", "cow")]
                food = min(9, food + 3)
            elif choice == "zombie":
                action, facing = "do (defeat zombie)", "zombie"
                events.append(Event("defeat", "zombie"))
            elif choice == "hurt":
                action, facing = "noop", "zombie"
                health = max(1, health - 2)
                events.append(Event("damage", "zombie", 2))
            elif choice == "sleep" and energy < 9:
                action = "sleep"
                sleeping = True
                events.append(Event("sleep", ""))
        for item in sorted(set(inv) | set(before)):
            delta = inv[item] - before[item]
            if delta > 0:
                events.append(Event("gain", item, delta))
            elif delta < 0:
                events.append(Event("lose", item, -delta))
        if t % 7 == 0:
            food = max(0, food - 1)
            energy = max(0, energy - 1)
        if t % 11 == 0:
            health = min(9, health + 1)
        steps.append(
            Step(
                t,
                action,
                events=tuple(events),
                inventory={k: v for k, v in inv.items() if v},
                state={"health": health, "food": food, "energy": energy, "sleeping": sleeping},
                location=Location((t % 13, t // 13), region, "grass"),
                relations=(Relation("agent", "facing", facing),),
            )
        )
    return list(validate_steps(steps, "toy"))


# --------------------------------------------------------------------------------------------------
# Brute force: an independent reading of the generator's wordings, answered by loops over the steps
# --------------------------------------------------------------------------------------------------

KIND_WORDS = {
    "collect": r"collect|gather|got|get|gotten|harvest\w*|picked up|pick up|grab\w*",
    "gain": r"got|get|gotten|obtain\w*|acquire\w*|receive\w*",
    "make": r"made|make|craft\w*|forge\w*|built|build",
    "place": r"placed|place|put|set up|built|build",
    "eat": r"ate|eat|eaten|devour\w*|fed on|feed on",
    "drink": r"drank|drink|drunk|sip\w*",
    "defeat": r"defeat\w*|kill\w*|slew|slay|slain|took down|take down|taken down",
    "visit": r"visit\w*|enter\w*|reach\w*|arrive\w*|went to|go to|gone to",
    "sleep": r"asleep|slept|sleep|nap|doze|dozed",
    "wake": r"woke|wake|awoke|awaken|woken",
    "damage": r"damage|hurt|lost health|lose health",
    "die": r"died|die",
}
ORDINALS = {
    w: i
    for i, w in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
        "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
    )
}
NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def occurrences(steps: Sequence[Step]) -> dict[tuple[str, str], list[int]]:
    occ: dict[tuple[str, str], list[int]] = {}
    for s in steps:
        for ev in s.events:
            occ.setdefault((ev.kind, ev.obj), []).append(s.t)
    return occ


def read_ordinal(text: str) -> int:
    if re.search(r"second to last|penultimate|next-to-last", text):
        return -2
    if re.search(r"\b(very last|last|final|most recent)\b", text):
        return -1
    m = re.search(r"\b(\d+)(?:st|nd|rd|th)\b", text)
    if m:
        return int(m.group(1))
    for word, n in ORDINALS.items():
        if re.search(rf"\b{word}\b", text):
            return n
    raise AssertionError(f"no ordinal in {text!r}")


def read_offset(text: str) -> int:
    m = re.search(
        r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (?:steps?|moves?) (after|following|before|prior to)\b",
        text,
    )
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else NUMBERS[m.group(1)]
        return n if m.group(2) in ("after", "following") else -n
    if re.search(r"\b(right|just|straight|directly) after\b|\bthe step (after|following)\b", text):
        return 1
    if re.search(r"\b(right|just) before\b|\b(right|directly) prior to\b|\bthe step (before|preceding)\b", text):
        return -1
    return 0


def brute_force(q: GeneratedQuestion, steps: Sequence[Step]) -> tuple[set[str], set[tuple[int, ...]]]:
    """Every answer (and decisive steps) the question's wording allows; a well-defined question has one."""
    text = q.question.lower()
    by_t = {s.t: s for s in steps}
    occ = occurrences(steps)
    if q.family == "target_step_action":
        t = int(re.search(r"(?:step|t=)\s*(\d+)", text).group(1))  # type: ignore[union-attr]
        return {by_t[t].action}, {(t,)}
    items = {name for s in steps for name, _ in s.inventory}
    states = {name for s in steps for name, _ in s.state}
    item = state = None
    m = re.search(r"how many (?:pieces of |units of )?(.+?) (?:did i|were in|was i)", text) or re.search(
        r"my (.+?) count", text
    )
    if q.family == "transition_inventory":
        assert m, text
        phrase = m.group(1)
        options = [phrase, phrase[:-1], phrase[:-2], phrase[:-3] + "y"]
        item = next((o for o in options if o in items), None)
        assert item is not None, text
        text = text.replace(m.group(0), " ")
    if q.family == "state_at_occurrence":
        found = [n for n in states if re.search(rf"\b(?:my|much|what) {n}\b", text)]
        assert len(found) == 1, text
        state = found[0]
        text = re.sub(rf"\b(my|much|what) {state}\b", " ", text)
    # objects named in the (rest of the) question, longest names first
    names = sorted({o for k, o in occ if o and k != "achievement"}, key=len, reverse=True)
    named: set[str] = set()
    rest = text
    for name in names:
        pattern = rf"\b{re.escape(name)}(?:e?s)?\b"
        if re.search(pattern, rest):
            named.add(name)
            rest = re.sub(pattern, " ", rest)
    single = {k for k, _ in occ if sum(1 for kk, _ in occ if kk == k) == 1}  # "took damage": the only source
    pairs = [
        (k, o)
        for (k, o) in occ
        if k in KIND_WORDS
        and re.search(rf"\b(?:{KIND_WORDS[k]})", rest)
        and (o in named or (not named and (not o or k in single)))
    ]
    pairs += [
        (k, o) for (k, o) in occ if k in ("damage", "die") and o in named and re.search(rf"\b(?:{KIND_WORDS[k]})", text)
    ]
    assert pairs, f"no pair read from {q.question!r}"
    answers: set[str] = set()
    deciders: set[tuple[int, ...]] = set()
    for pair in set(pairs):
        ts = occ[pair]
        if q.family == "count_until":
            bound = int(re.search(r"step (\d+)", text).group(1))  # type: ignore[union-attr]
            upto = [t for t in ts if t <= bound]
            answers.add(str(len(upto)))
            deciders.add((max(upto),) if upto else ())
            continue
        n = read_ordinal(text)
        n = len(ts) + 1 + n if n < 0 else n
        if not 1 <= n <= len(ts):
            continue
        anchor = ts[n - 1]
        offset = read_offset(text) if q.family in ("offset_action", "transition_inventory") else 0
        target = by_t.get(anchor + offset)
        if target is None:
            continue
        decisive = tuple(sorted({anchor, target.t}))
        if q.family in ("occurrence_step", "transition_step"):
            answers.add(str(anchor))
        elif q.family == "offset_action":
            answers.add(target.action)
        elif q.family == "occurrence_location":
            answers.add(target.location.region)
        elif q.family == "transition_inventory":
            answers.add(str(target.inventory_dict.get(item, 0)))
        elif q.family == "state_at_occurrence":
            answers.add(str(target.state_dict[state]))
        deciders.add(decisive)
    return answers, deciders


# --------------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------------

TOY = toy_steps(0)


@pytest.fixture(scope="module")
def crafter_steps() -> list[list[Step]]:
    from graphmem.loaders.crafter import run_crafter

    return [run_crafter(seed, steps=1000) for seed in (0, 1)]


def round_trip(
    episode_id: str, steps: Sequence[Step], questions: Sequence[GeneratedQuestion]
) -> tuple[Counter[str], Counter[str], list[str]]:
    vocab = vocabulary_from_steps(steps)
    bundle = bundle_from_steps(episode_id, steps)
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    failures: list[str] = []
    for q in questions:
        anchors = parse_anchors(q.question, vocab)
        got = execute(anchors, bundle)
        total[q.family] += 1
        if normalize_answer(got) == normalize_answer(q.answer):
            right[q.family] += 1
        else:
            failures.append(f"[{q.family}] {q.question!r}: gold {q.answer!r}, got {got!r} from {anchors}")
    return total, right, failures


def _report(total: Counter[str], right: Counter[str]) -> str:
    return ", ".join(f"{f} {right[f]}/{total[f]}" for f in FAMILIES if total[f])


# --------------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("paraphrase", [False, True])
def test_every_family_is_generated_on_the_toy_episode(paraphrase: bool) -> None:
    qs = generate_questions("toy", TOY, per_family=12, seed=3, paraphrase=paraphrase)
    counts = Counter(q.family for q in qs)
    assert set(counts) == set(FAMILIES)
    assert all(n <= 12 for n in counts.values())
    assert len({q.question for q in qs}) == len(qs)
    for q in qs:
        assert q.gold_source_ids and all(re.fullmatch(r"toy:\d+", s) for s in q.gold_source_ids)
        assert q.answer != ""


def test_deterministic_for_a_seed() -> None:
    a = generate_questions("toy", TOY, per_family=8, seed=5)
    b = generate_questions("toy", TOY, per_family=8, seed=5)
    c = generate_questions("toy", TOY, per_family=8, seed=6)
    assert a == b
    assert a != c


def test_degenerate_inputs() -> None:
    assert generate_questions("toy", [], per_family=5) == []
    assert generate_questions("toy", TOY, per_family=0) == []
    # no events, no regions: only target-step questions can be asked
    bare = [Step(t, f"move {t}") for t in range(5)]
    qs = generate_questions("bare", bare, per_family=3)
    assert {q.family for q in qs} == {"target_step_action"}


@pytest.mark.parametrize("paraphrase", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gold_matches_brute_force_on_toy(paraphrase: bool, seed: int) -> None:
    steps = toy_steps(seed)
    for q in generate_questions(f"toy{seed}", steps, per_family=15, seed=seed, paraphrase=paraphrase):
        answers, deciders = brute_force(q, steps)
        assert answers == {q.answer}, f"{q}: brute force gives {answers}"
        ids = {tuple(int(s.split(":")[1]) for s in q.gold_source_ids)}
        assert ids == deciders, f"{q}: decisive steps {deciders}"


def test_gold_matches_brute_force_on_crafter(crafter_steps: list[list[Step]]) -> None:
    for i, steps in enumerate(crafter_steps):
        for paraphrase in (False, True):
            for q in generate_questions(f"crafter{i}", steps, per_family=15, seed=i, paraphrase=paraphrase):
                answers, deciders = brute_force(q, steps)
                assert answers == {q.answer}, f"{q}: brute force gives {answers}"
                assert {tuple(int(s.split(":")[1]) for s in q.gold_source_ids)} == deciders


def test_offset_targets_stay_inside_the_episode() -> None:
    short = TOY[:30]
    known = {s.t for s in short}
    for q in generate_questions("toy", short, per_family=30, seed=0):
        assert all(int(s.split(":")[1]) in known for s in q.gold_source_ids)


def test_gold_is_decided_by_the_gold_steps_alone() -> None:
    # Packing only gold_source_ids (plus the episode totals) must be enough for the executor.
    vocab = vocabulary_from_steps(TOY)
    for q in generate_questions("toy", TOY, per_family=10, seed=4, paraphrase=False):
        keep = {int(s.split(":")[1]) for s in q.gold_source_ids}
        got = execute(parse_anchors(q.question, vocab), bundle_from_steps("toy", TOY, keep=keep))
        assert normalize_answer(got) == normalize_answer(q.answer), q


@pytest.mark.parametrize("paraphrase", [False, True])
def test_round_trip_on_toy(paraphrase: bool) -> None:
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    failures: list[str] = []
    for seed in (0, 1, 2):
        steps = toy_steps(seed)
        qs = generate_questions(f"toy{seed}", steps, per_family=20, seed=seed, paraphrase=paraphrase)
        t, r, f = round_trip(f"toy{seed}", steps, qs)
        total += t
        right += r
        failures += f
    accuracy = sum(right.values()) / sum(total.values())
    print(f"toy round trip (paraphrase={paraphrase}): {accuracy:.3f}; {_report(total, right)}")
    assert accuracy >= 0.98, "\n".join(failures)


@pytest.mark.parametrize("paraphrase", [False, True])
def test_round_trip_on_crafter(crafter_steps: list[list[Step]], paraphrase: bool) -> None:
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    failures: list[str] = []
    for i, steps in enumerate(crafter_steps):
        qs = generate_questions(f"crafter{i}", steps, per_family=20, seed=i, paraphrase=paraphrase)
        t, r, f = round_trip(f"crafter{i}", steps, qs)
        total += t
        right += r
        failures += f
    accuracy = sum(right.values()) / sum(total.values())
    print(f"crafter round trip (paraphrase={paraphrase}): {accuracy:.3f}; {_report(total, right)}")
    assert accuracy >= 0.98, "\n".join(failures)


def _template_regex(template: str) -> re.Pattern[str]:
    """A held-out template as a regex over a whole question: literal text, with any words for the fields."""
    parts = re.split(r"\{[a-zA-Z]+\}", template)
    return re.compile(".+?".join(re.escape(p) for p in parts), re.IGNORECASE)


def test_heldout_templates_are_unseen_by_the_parser_tests() -> None:
    tree = ast.parse((Path(__file__).parent / "test_anchors.py").read_text())
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for family, sets in TEMPLATES.items():
        assert len(sets["base"]) >= 3 and len(sets["heldout"]) >= 3, family
        assert not set(sets["base"]) & set(sets["heldout"]), family
        for template in sets["heldout"]:
            pattern = _template_regex(template)
            used = [s for s in strings if pattern.fullmatch(s)]
            assert not used, f"held-out template {template!r} ({family}) is used in test_anchors.py: {used}"
