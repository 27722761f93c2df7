"""Every node the writers build has a readable caption, and the Browser style shows it for every label."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import NODE_LABELS
from graphmem.write.captions import CAPTION_CHARS, clipped
from hash_embed import HashEmbedder

GRASS = Path(__file__).resolve().parents[2] / "cypher" / "browser" / "graphmem.grass"
#: Labels whose nodes show their ``name``.
NAMED = {"Participant", "Entity", "Location"}


def _rules() -> list[tuple[str, dict[str, str]]]:
    """The style sheet's rules in order: (selector, properties)."""
    rules = []
    # A rule's body ends at a "}" of its own line ("{caption}" inside it is a property's value).
    for selector, body in re.findall(r"^([\w.]+) \{\n(.*?)\n\}$", GRASS.read_text(), re.MULTILINE | re.DOTALL):
        props = dict(tuple(part.strip() for part in line.split(":", 1)) for line in body.split(";") if ":" in line)
        rules.append((selector, {k: v.strip('"') for k, v in props.items()}))
    return rules


def test_the_style_captions_every_label():
    rules = _rules()
    selectors = [selector for selector, _ in rules]
    styled = {selector.split(".", 1)[1]: props for selector, props in rules if selector.startswith("node.")}
    assert set(styled) == NODE_LABELS | {"Memory", "Unit"}
    for label in NODE_LABELS:
        assert styled[label]["caption"] == ("{name}" if label in NAMED else "{caption}"), label
        assert styled[label]["color"].startswith("#")
        # The Browser applies a node's matching rules in the sheet's order: the shared labels first.
        assert selectors.index(f"node.{label}") > max(selectors.index("node.Memory"), selectors.index("node.Unit"))


def test_every_written_node_has_a_caption():
    store = EmbeddedStore()
    mem = Memory(store=store, embedder=HashEmbedder())
    steps = [Step(t, "collect wood" if t % 2 == 0 else "place table",
                  events=(Event("collect", "wood"),) if t % 2 == 0 else (Event("place", "table"), Event("consume", "wood")),
                  objects=("tree",), inventory={"wood": (t + 1) % 2}, state={"mode": "day" if t < 3 else "night"},
                  location=Location((t, 0), "forest")) for t in range(6)]
    mem.add_steps("ns", "run-1", steps)
    start = datetime(2024, 3, 2, 18, tzinfo=UTC)
    for i in range(2):
        turns = [Turn(f"s{i}:{j}", "Maya" if j % 2 == 0 else "Leo", f"Pepper and I went hiking in the hills near Lake Tahoe, part {j}")
                 for j in range(4)]
        mem.add_session("ns", f"s{i}", turns, started_at=start + timedelta(days=7 * i))
    seen: set[str] = set()
    for (_, key), attrs in store.graph.nodes(data=True):
        label = attrs["label"]
        seen.add(label)
        text = attrs.get("name") if label in NAMED else attrs.get("caption")
        assert isinstance(text, str) and text.strip() and "\n" not in text and len(text) <= 2 * CAPTION_CHARS, (key, attrs)
    assert seen == NODE_LABELS
    nodes = store.get_nodes("ns", ["step:run-1:1", "event:run-1:0#0", "episode:run-1", "session:s1", "turn:s0:1",
                                   "change:run-1:1~inventory:wood", "change:run-1:3~state:mode"])
    assert [p["caption"] for p in nodes.values()] == [
        "1 · place table", "collect wood #1", "run-1 · trajectory", "s1 · 9 Mar 2024",
        "Leo: Pepper and I went hiking in the hills…", "wood 1 → 0", "mode day → night"]


def test_clipping_keeps_a_caption_to_one_short_line():
    assert clipped("x" * 100) == "x" * (CAPTION_CHARS - 1) + "…"
    assert clipped("  two\n lines  ") == "two lines"
