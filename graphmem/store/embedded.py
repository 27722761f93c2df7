"""The embedded backend: the same memory graph in-process, on networkx, numpy and BM25.

It is graphmem's default when no Neo4j is configured. It realizes every ``GraphStore`` lookup with the
same rules as the Cypher statements in ``cypher/`` (the contract suite checks that both answer alike),
keeping small dictionaries beside the graph where Neo4j would use an index.
"""

from __future__ import annotations

from graphmem.errors import ConflictError, StoreError
from graphmem.store.embedded_reads import EmbeddedReads
from graphmem.store.lifecycle import (
    SHARED_LINKS,
    SessionParts,
    box_place,
    episode_renumbering,
    session_removal,
    turn_place,
)
from graphmem.store.protocol import EDGE_TYPES, NODE_LABELS, TurnRow, WriteBatch, node_key, unmet
from graphmem.store.rows import episode_row, session_row, turn_row

__all__ = ["EmbeddedStore"]


class EmbeddedStore(EmbeddedReads):
    """In-process ``GraphStore``. Thread-safe; not persistent (a process holds its memory).

    Its graph and indexes are ``graphmem.store.embedded_graph``'s, its reads ``graphmem.store.embedded_reads``'s;
    here are its writes and deletions.
    """

    # ------------------------------------------------------------------ schema and writes
    def ensure_schema(self) -> None:
        """Nothing to create: the dictionaries beside the graph are the indexes."""

    def write(self, batch: WriteBatch) -> None:
        with self._lock:
            self._check(batch)
            for expect in batch.expect:
                node = self.graph.nodes.get((expect.namespace, expect.key))
                actual = None if node is None else node.get(expect.prop)
                if actual != expect.value:
                    raise ConflictError(unmet(expect, actual))
            for row in batch.nodes:
                self._merge_node(row.namespace, row.key, row.label, row.uid, dict(row.props))
            for edge in batch.edges:
                node_a, node_b = (edge.namespace, edge.source), (edge.namespace, edge.target)
                if self.graph.has_edge(node_a, node_b, key=edge.type):
                    self.graph.edges[node_a, node_b, edge.type].update(edge.props)
                else:
                    self.graph.add_edge(node_a, node_b, key=edge.type, **dict(edge.props))
                    self._edge_counts[(edge.namespace, edge.type)] += 1

    def _check(self, batch: WriteBatch) -> None:
        """Refuse the whole batch before touching the graph, so a bad row writes nothing."""
        new_nodes = {(r.namespace, r.key) for r in batch.nodes}
        for row in batch.nodes:
            if row.label not in NODE_LABELS:
                raise StoreError(f"unknown node label {row.label!r}")
            vector = row.props.get("embedding")
            if vector is not None and len(vector) != self.dimensions:
                raise StoreError(f"{row.key}: embedding has {len(vector)} dimensions, the store expects {self.dimensions}")
        for edge in batch.edges:
            if edge.type not in EDGE_TYPES:
                raise StoreError(f"unknown relationship type {edge.type!r}")
            for end in (edge.source, edge.target):
                if (edge.namespace, end) not in new_nodes and (edge.namespace, end) not in self.graph:
                    raise StoreError(f"relationship {edge.type} refers to missing node {end!r} in {edge.namespace!r}")

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ lifecycle: namespaces, one episode, one session
    def namespaces(self) -> list[str]:
        with self._lock:
            return sorted({ns for (ns, label), keys in self._by_label.items() if label == "Episode" and keys})

    def session_turns(self, namespace: str, session: str) -> list[TurnRow]:
        with self._lock:
            skey = node_key("Session", session)
            turns = [turn_row(self._props(namespace, key)) for key in self._in(namespace, skey, "IN_SESSION")]
        return sorted(turns, key=lambda t: (t.seq, t.key))

    def delete_episode(self, namespace: str, episode: str) -> None:
        with self._lock:
            ekey = node_key("Episode", episode)
            if (namespace, ekey) not in self.graph:
                return
            doomed: list[str] = []
            shared: set[str] = set()
            for unit in self._in(namespace, ekey, "IN_EPISODE"):  # steps, sessions, turns
                doomed += [unit, *self._out(namespace, unit, "HAS_EVENT"), *self._out(namespace, unit, "CHANGES")]
                for link in SHARED_LINKS:
                    shared.update(self._out(namespace, unit, link))
                for box in self._in(namespace, unit, "CONTAINS"):
                    events = self._out(namespace, box, "HAS_EVENT")
                    doomed += [box, *events]
                    shared.update(trace for event in events for trace in self._out(namespace, event, "IN_TRACE"))
            renumber = episode_renumbering(namespace, [episode_row(a) for a in self._nodes_with(namespace, "Episode")], episode)
            self._remove_nodes(namespace, [*dict.fromkeys(doomed), ekey])
            self._remove_orphans(namespace, shared)
            # EmbeddedStore.write, not self.write: a store that logs its writes (FileStore) logs the whole
            # deletion as one entry, and replaying it runs this again.
            EmbeddedStore.write(self, renumber)

    def delete_session(self, namespace: str, session: str) -> None:
        with self._lock:
            parts = self._session_parts(namespace, session)
            if parts is None:
                return
            if len(parts.sessions) == 1:
                EmbeddedStore.delete_episode(self, namespace, parts.episode.uid)
                return
            removal = session_removal(parts)
            self._remove_nodes(namespace, removal.doomed)
            self._remove_orphans(namespace, removal.shared)
            EmbeddedStore.write(self, removal.then)  # not self.write: see delete_episode

    def _session_parts(self, namespace: str, session: str) -> SessionParts | None:
        """What ``session_removal`` needs to delete a session (None when it is not stored)."""
        skey = node_key("Session", session)
        if (namespace, skey) not in self.graph:
            return None
        ekey = node_key("Episode", str(self.graph.nodes[(namespace, skey)]["episode"]))
        members = [self.graph.nodes[(namespace, key)] for key in self._in(namespace, ekey, "IN_EPISODE")]
        turns = [m for m in members if m["label"] == "Turn"]
        boxes = [self.graph.nodes[(namespace, b)] for b in sorted({b for t in turns for b in self._in(namespace, t["key"], "CONTAINS")})]
        own_turns = [t["key"] for t in turns if t.get("session") == session]
        box_events = [e for b in boxes if b.get("session") == session for e in self._out(namespace, b["key"], "HAS_EVENT")]
        shared = {x for t in own_turns for link in SHARED_LINKS for x in self._out(namespace, t, link)}
        shared.update(trace for e in box_events for trace in self._out(namespace, e, "IN_TRACE"))
        return SessionParts(
            namespace, session_row(self._props(namespace, skey)), episode_row(self._props(namespace, ekey)),
            [session_row(m) for m in members if m["label"] == "Session"], [turn_place(t) for t in turns],
            [box_place(b) for b in boxes], box_events, sorted(shared),
        )
