"""The Neo4j backend's write path: a ``WriteBatch`` as rows for write/merge_batch, in one transaction.

A batch's rows are folded (one row per node and per relationship) and checked before anything is sent;
the batch's conditions (``Expect``) are read under the write locks of the nodes they name, first in its
transaction; then its nodes and relationships are merged, by one ``UNWIND`` statement when they fit in a
chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import neo4j

from graphmem.cypher_files import cypher
from graphmem.errors import ConflictError, StoreError
from graphmem.store.neo4j_properties import browser_times, int8_code, ns_key
from graphmem.store.protocol import DIMENSIONS, EDGE_TYPES, NODE_LABELS, UNIT_LABELS, Expect, WriteBatch, unmet

__all__ = ["CHUNK", "batch_work", "edge_rows", "merge_rows", "node_rows"]

#: Rows per UNWIND statement. Every chunk of a batch runs in the batch's one transaction, so this bounds
#: a message and the planner's Eager buffer, not the transaction; a batch whose nodes and edges each fit
#: in one chunk is written by one statement (one round trip). 5000 covers a 512-step batch.
CHUNK = 5000

#: Per namespace, its node rows for write/merge_batch: key, uid, labels, props, embedding.
NodeRows = dict[str, list[dict[str, Any]]]
#: Per namespace, ``(type, [source, target, props])`` relationship rows.
EdgeRows = dict[str, list[tuple[str, list[Any]]]]


def batch_work(batch: WriteBatch) -> Callable[[neo4j.ManagedTransaction], None]:
    """The transaction function that writes ``batch`` (for ``Session.execute_write``). Its rows are
    built and checked here, before any transaction: a bad row is a ``StoreError`` that sends nothing."""
    nodes_by_namespace = node_rows(batch)
    edges_by_namespace = edge_rows(batch)
    namespaces = list(dict.fromkeys([*nodes_by_namespace, *edges_by_namespace]))

    # The guards in one lock order (namespace, key); ``create``: the batch writes the guarded node, so
    # write/check_expected may merge it to lock a key that does not exist yet.
    written = {(row.namespace, row.key) for row in batch.nodes}
    expect = [
        {"namespace": e.namespace, "key": e.key, "prop": e.prop, "value": e.value, "create": (e.namespace, e.key) in written}
        for e in sorted(batch.expect, key=lambda e: (e.namespace, e.key))
    ]

    def work(tx: neo4j.ManagedTransaction) -> None:
        if expect:
            # Before anything else: it locks the guarded nodes, and a guard read earlier (or unlocked)
            # would let a racing writer build on the same state and commit too.
            unmet_rows = list(tx.run(cypher("write/check_expected"), expect=expect))
            if unmet_rows:
                row = unmet_rows[0]
                raise ConflictError(unmet(Expect(row["namespace"], row["key"], row["prop"], row["value"]), row["actual"]))
        parts = [(namespace, nodes_by_namespace.get(namespace, []), edges_by_namespace.get(namespace, [])) for namespace in namespaces]
        if sum(len(nodes) for _, nodes, _ in parts) <= CHUNK and sum(len(edges) for _, _, edges in parts) <= CHUNK:
            # The usual case: the whole batch (of one namespace or of several, as a bulk writer's group
            # of small batches) in one statement.
            merged = merge_batch(tx, parts)
        else:
            merged = 0
            for namespace, nodes, edges in parts:
                if len(nodes) <= CHUNK and len(edges) <= CHUNK:
                    merged += merge_batch(tx, [(namespace, nodes, edges)])
                    continue
                for start in range(0, len(nodes), CHUNK):
                    tx.run(cypher("write/merge_nodes"), namespace=namespace, batch={"nodes": nodes[start : start + CHUNK]}).consume()
                for start in range(0, len(edges), CHUNK):
                    merged += merge_batch(tx, [(namespace, [], edges[start : start + CHUNK])])
        # An edge row whose end node exists neither in the batch nor the store matches nothing and
        # merges nothing; rows are distinct, so one missing merge means a missing node. Raising here
        # rolls the whole transaction back.
        if merged != sum(len(edges) for _, _, edges in parts):
            raise StoreError("a relationship refers to a node that does not exist; the batch was rolled back")

    return work


def merge_rows(tx: neo4j.ManagedTransaction, batch: WriteBatch) -> None:
    """Merge a batch of rows between stored nodes inside ``tx`` (a deletion's follow-up)."""
    nodes_by_namespace, edges_by_namespace = node_rows(batch), edge_rows(batch)
    for namespace in sorted({*nodes_by_namespace, *edges_by_namespace}):
        nodes, edges = nodes_by_namespace.get(namespace, []), edges_by_namespace.get(namespace, [])
        for start in range(0, len(nodes), CHUNK):
            tx.run(cypher("write/merge_nodes"), namespace=namespace, batch={"nodes": nodes[start : start + CHUNK]}).consume()
        merged = sum(merge_batch(tx, [(namespace, [], edges[start : start + CHUNK])]) for start in range(0, len(edges), CHUNK))
        if merged != len(edges):
            raise StoreError("a relationship refers to a node that does not exist; the deletion was rolled back")


def node_rows(batch: WriteBatch) -> NodeRows:
    """Per namespace, one row per distinct node: rows for the same key are folded in order (later
    properties win, the last embedding given wins), exactly what merging them one after another would
    leave.

    Folding matters for throughput: a batch of steps names the same Location and Entity nodes over
    and over, and each repeated row would cost the server a MERGE and a SET. The namespace is a
    statement parameter rather than a field of every row (less to send and unpack).
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    namespaces: NodeRows = {}
    for row in batch.nodes:
        if row.label not in NODE_LABELS:
            raise StoreError(f"unknown node label {row.label!r}")
        embedding = row.props.get("embedding")
        if embedding is not None and len(embedding) != DIMENSIONS:
            raise StoreError(f"{row.key}: embedding has {len(embedding)} dimensions, the store expects {DIMENSIONS}")
        entry = rows.get((row.namespace, row.key))
        if entry is None:
            labels = [row.label, "Unit"] if row.label in UNIT_LABELS else [row.label]
            props: dict[str, Any] = {}
            entry = rows[(row.namespace, row.key)] = {"key": row.key, "uid": row.uid, "labels": labels, "props": props, "embedding": None}
            namespaces.setdefault(row.namespace, []).append(entry)
        entry["props"].update((k, v) for k, v in row.props.items() if k != "embedding")
        entry["props"].update(browser_times(row.label, row.props))  # Browser-only, never read back
        entry["props"]["key"] = row.key
        if row.label in (*UNIT_LABELS, "Box"):
            entry["props"]["ns_key"] = ns_key(row.namespace)
        entry["uid"] = row.uid
        if embedding is not None:
            entry["embedding"] = embedding
            # A zero vector has no code; null removes a code an earlier vector left.
            code = int8_code(embedding)
            entry["props"]["embedding_int8"], entry["props"]["embedding_int8_sq"] = code if code is not None else (None, None)
    return namespaces


def merge_batch(tx: neo4j.ManagedTransaction, parts: Sequence[tuple[str, list[dict[str, Any]], list[tuple[str, list[Any]]]]]) -> int:
    """Merge the nodes and edges of one or more namespaces, ``(namespace, nodes, edges)`` each, in one
    statement (write/merge_batch); returns how many edge rows were merged (fewer than given when an end
    node does not exist).

    The statement takes each node's namespace as a position in the batch's namespaces, each edge's
    ends as positions in the batch's nodes followed by the ends outside it ([namespace position, key]),
    and the edges grouped by relationship type. One statement for a group of small batches of many
    namespaces: a statement per namespace paid the statement's fixed cost (a block per relationship type)
    for every few rows."""
    nodes_all: list[dict[str, Any]] = []
    position: dict[tuple[str, str], int] = {}
    for at, (namespace, nodes, _) in enumerate(parts):
        for row in nodes:
            position[(namespace, row["key"])] = len(nodes_all)
            nodes_all.append({**row, "ns": at})
    external: list[list[Any]] = []
    by_type: dict[str, list[list[Any]]] = {}
    for at, (namespace, _, edges) in enumerate(parts):
        for etype, (source, target, props) in edges:
            ends = []
            for key in (source, target):
                end = position.get((namespace, key))
                if end is None:
                    end = position[(namespace, key)] = len(position)
                    external.append([at, key])
                ends.append(end)
            by_type.setdefault(etype, []).append([ends[0], ends[1], props])
    batch = {"namespaces": [namespace for namespace, _, _ in parts], "nodes": nodes_all, "external": external, "edges": by_type}
    record = tx.run(cypher("write/merge_batch"), batch=batch).single()
    return int(record["merged"]) if record is not None else 0


def edge_rows(batch: WriteBatch) -> EdgeRows:
    """Per namespace, one ``(type, [source, target, props])`` per distinct (type, source, target),
    properties folded in order as for nodes."""
    folded: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for edge in batch.edges:
        if edge.type not in EDGE_TYPES:
            raise StoreError(f"unknown relationship type {edge.type!r}")
        folded.setdefault((edge.namespace, edge.source, edge.target, edge.type), {}).update(edge.props)
    rows: EdgeRows = {}
    for (namespace, source, target, etype), props in folded.items():
        rows.setdefault(namespace, []).append((etype, [source, target, props]))
    return rows
