"""The persistent embedded backend: the embedded store, kept in a SQLite file that later processes reopen.

``FileStore(path)`` is an ``EmbeddedStore`` whose writes also go to a log in a SQLite file, one row per
batch, in commit order. Opening the file replays the log into memory, so every read is the embedded
store's own read and a later process answers exactly as the one that wrote. Several processes (and
several ``FileStore`` objects in one process) may share a file:

* a write takes SQLite's write lock (``BEGIN IMMEDIATE``: one writer at a time, waiting up to ``timeout``
  seconds), first applies the rows other writers logged since this store last looked, checks the batch's
  ``Expect`` conditions against that caught-up graph (``ConflictError``, nothing written, exactly as the
  embedded store), logs the batch and commits. A batch is wholly in the file or not at all;
* before each read the store asks SQLite whether another connection committed since (``PRAGMA
  data_version``, a counter read without touching the file) and, if so, applies only the new rows.
  Readers never wait for a writer (WAL mode).

Durability: WAL mode with ``synchronous=FULL``, so a write that returned survives a killed process and a
power cut (NORMAL would survive a killed process but could lose the last commits on power loss; a batch
is large, so the one fsync per commit costs little beside building it).

The log's rows are JSON: ``{"v": 1, "op": "write", "nodes": [...], "edges": [...]}``, or a call of one of
the embedded store's other change methods (every ``delete_*``: a namespace, an episode, a session), logged
as the operation with its arguments (``{"v": 1, "op": "delete_session", "args": ["user-1", "s2"]}``) and
replayed as the same deletion on the same graph. A list of floats is stored as base64 of its little-endian
float32 bytes when float32 holds it exactly (the embedders' vectors), else of float64, so every value comes
back equal. Nothing in the file is executable (a row can name only a change method of the embedded
store): a damaged or foreign file gives a ``StoreError``.

>>> import tempfile, pathlib
>>> from graphmem.store.protocol import NodeRow, WriteBatch
>>> path = pathlib.Path(tempfile.mkdtemp()) / "memory.db"
>>> store = FileStore(path)
>>> store.write(WriteBatch((NodeRow("Entity", "ns", "wood", {"name": "wood"}),)))
>>> store.close()
>>> reopened = FileStore(path)
>>> reopened.counts("ns"), reopened.get_nodes("ns", ["entity:wood"])["entity:wood"]["name"]
({'Entity': 1}, 'wood')
>>> reopened.close()
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConflictError, StoreError
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import EdgeRow, NodeRow, WriteBatch

#: What the file's ``graphmem_meta`` table says it is, and the log format this code reads and writes.
FORMAT = "graphmem-memory"
VERSION = 1
#: Seconds a write waits for another process's write to finish before giving up.
DEFAULT_TIMEOUT = 30.0
#: Lists of at least this many floats are stored as base64 bytes (shorter ones stay readable JSON).
PACKED_MIN = 8

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS graphmem_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # One row per logged batch; AUTOINCREMENT keeps seq growing even if rows are ever removed.
    "CREATE TABLE IF NOT EXISTS graphmem_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)",
)


# ---------------------------------------------------------------------------------------- values


#: The types a property value (or an element of a list value) may have as it is.
_SCALARS = frozenset({str, bool, int, float, type(None)})


def _plain(value: Any, row: NodeRow | EdgeRow) -> Any:
    """A property value as the log stores and gives back: str, int, float, bool, None or a list of them
    (tuples and numpy values become their plain equivalents, as Neo4j stores them)."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, (list, tuple)):
        # set(map(type, ...)) runs in C: an embedding's 384 floats are checked in microseconds.
        if set(map(type, value)) <= _SCALARS:
            return value if type(value) is list else list(value)
        return [_plain(v, row) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist(), row)
    if isinstance(value, np.generic):
        return value.item()
    for plain in (str, int, float):  # a subclass (an IntEnum, say) is stored as its plain value
        if isinstance(value, plain):
            return plain(value)
    where = row.key if isinstance(row, NodeRow) else f"{row.type} {row.source}->{row.target}"
    raise StoreError(f"{where}: a property value must be a string, number, boolean or a list of them, not {type(value).__name__}")


def _props(row: NodeRow | EdgeRow) -> dict[str, Any]:
    """The row's props with plain values."""
    return {str(k): v if type(v) in _SCALARS else _plain(v, row) for k, v in row.props.items()}


def _encode(value: Any) -> Any:
    """A plain value as JSON: a long list of floats as ``{"f4": base64}`` (float32 holds each exactly)
    or ``{"f8": base64}``; props never hold a mapping, so a JSON object can only be such a list."""
    if isinstance(value, list) and len(value) >= PACKED_MIN and set(map(type, value)) == {float}:
        wide = np.asarray(value, dtype="<f8")
        narrow = wide.astype("<f4")
        if not np.isnan(wide).any() and np.array_equal(narrow.astype("<f8"), wide):
            return {"f4": base64.b64encode(narrow.tobytes()).decode("ascii")}
        return {"f8": base64.b64encode(wide.tobytes()).decode("ascii")}
    return value


def _unpack(packed: dict[str, str]) -> list[float]:
    """The list of floats of ``_encode``'s ``{"f4": ...}`` or ``{"f8": ...}``."""
    ((kind, data),) = packed.items()
    dtype = {"f4": "<f4", "f8": "<f8"}[kind]
    values: list[float] = np.frombuffer(base64.b64decode(data), dtype=dtype).astype(np.float64).tolist()
    return values


def _encode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _encode(v) if type(v) is list else v for k, v in props.items()}


def _decode_props(props: dict[str, Any]) -> dict[str, Any]:
    # Only a packed list is a JSON object; every other value is as JSON read it.
    return {k: _unpack(v) if type(v) is dict else v for k, v in props.items()}


def plain_batch(batch: WriteBatch) -> WriteBatch:
    """The batch with every property value as the log gives it back, so this process's graph is the one
    a later process rebuilds from the file (``Expect`` conditions kept)."""
    nodes = tuple(NodeRow(r.label, r.namespace, r.uid, _props(r)) for r in batch.nodes)
    edges = tuple(EdgeRow(e.type, e.namespace, e.source, e.target, _props(e)) for e in batch.edges)
    return WriteBatch(nodes, edges, batch.expect)


def encode_write(batch: WriteBatch) -> str:
    """A plain batch (``plain_batch``) as one log row (its ``Expect`` conditions are checked when it is
    written, so the log does not keep them)."""
    return json.dumps(
        {
            "v": VERSION,
            "op": "write",
            "nodes": [[r.label, r.namespace, r.uid, _encode_props(r.props)] for r in batch.nodes],
            "edges": [[e.type, e.namespace, e.source, e.target, _encode_props(e.props)] for e in batch.edges],
        },
        separators=(",", ":"),
    )


def is_change(name: str) -> bool:
    """Whether the embedded store's public method ``name`` changes the graph: ``write`` and every
    ``delete_*`` (a namespace, an episode, a session ...). FileStore logs each call of one."""
    return name == "write" or name.startswith("delete_")


def encode_call(method: str, arguments: list[Any]) -> str:
    """A call of a change method other than ``write`` (``delete_namespace("ns")``) as one log row."""
    return json.dumps({"v": VERSION, "op": method, "args": arguments}, separators=(",", ":"))


def decode_entry(body: str) -> tuple[str, Any]:
    """A log row as ``("write", WriteBatch)`` or ``(method, arguments)`` of another change method of the
    embedded store (only such a method: the file names no other code); anything else raises
    ``ValueError`` (the caller names the file and row)."""
    entry = json.loads(body)
    if not isinstance(entry, dict) or not isinstance(entry.get("v"), int):
        raise TypeError("not a graphmem log entry")
    if entry["v"] > VERSION:
        raise ValueError(f"written in log format {entry['v']} by a newer graphmem; this one reads format {VERSION}")
    op = entry.get("op")
    if op == "write":
        nodes = tuple(NodeRow(label, ns, uid, _decode_props(props)) for label, ns, uid, props in entry["nodes"])
        edges = tuple(EdgeRow(t, ns, a, b, _decode_props(props)) for t, ns, a, b, props in entry["edges"])
        return "write", WriteBatch(nodes, edges)
    if isinstance(op, str) and is_change(op) and callable(getattr(EmbeddedStore, op, None)) and isinstance(entry.get("args"), list):
        return op, entry["args"]
    raise ValueError(f"unknown log operation {op!r}")


# ---------------------------------------------------------------------------------------- the store


class FileStore(EmbeddedStore):
    """An ``EmbeddedStore`` persisted to the SQLite file at ``path`` (created, with its folder, if missing).

    Every public read of ``EmbeddedStore`` first catches up with the file, and every change (``write``,
    ``delete_namespace``, the other ``delete_*``) is logged to the file before it is acknowledged (see
    ``_wrap_methods`` below: the methods are wrapped when this module loads, so one added to the embedded
    store is covered too).
    ``timeout``: seconds a write waits while another process holds the file's write lock.
    """

    def __init__(self, path: str | os.PathLike[str], dimensions: int = 384, timeout: float = DEFAULT_TIMEOUT) -> None:
        super().__init__(dimensions)
        self.path = Path(path).expanduser()
        self.timeout = timeout
        self._db: sqlite3.Connection | None = None
        self._seq = 0  # the last log row applied to the graph in memory
        self._version: int | None = None  # PRAGMA data_version when the log was last read
        self._replaying = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: no implicit transactions; every write opens its own BEGIN IMMEDIATE.
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self._prepare(self._db)
            self._catch_up()
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(f"{self.path}: cannot open it as a graphmem memory file: {exc}") from exc
        except BaseException:
            self.close()
            raise

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Check that the file is a graphmem memory of this format (creating the tables in a new file)."""
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a graphmem memory file ({exc}); give another path") from exc
        if tables and "graphmem_meta" not in tables:
            raise StoreError(
                f"{self.path} is an SQLite database of another application (tables {sorted(tables)}), not a graphmem "
                "memory file; give another path"
            )
        if "graphmem_log" not in tables:
            if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise StoreError(f"{self.path}: SQLite cannot keep a write-ahead log there (a network file system?)")
            self._begin(db)
            try:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.executemany(
                    "INSERT OR IGNORE INTO graphmem_meta (key, value) VALUES (?, ?)",
                    [("format", FORMAT), ("version", str(VERSION)), ("dimensions", str(self.dimensions))],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        db.execute("PRAGMA synchronous = FULL")
        meta = dict(db.execute("SELECT key, value FROM graphmem_meta").fetchall())
        if meta.get("format") != FORMAT:
            raise StoreError(f"{self.path} is not a graphmem memory file (format {meta.get('format')!r}); give another path")
        if int(meta.get("version", "0")) > VERSION:
            raise StoreError(f"{self.path} was written by a newer graphmem (format {meta['version']}); this one reads format {VERSION}")
        if int(meta.get("dimensions", "0")) != self.dimensions:
            raise StoreError(
                f"{self.path} holds {meta.get('dimensions')}-dimensional embeddings, this store was opened for {self.dimensions}"
            )

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"the memory file store on {self.path} is closed")
        return self._db

    def _begin(self, db: sqlite3.Connection) -> None:
        """Take the file's write lock (waiting up to ``timeout`` seconds for another writer)."""
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreError(
                    f"{self.path}: another process holds the write lock (waited {self.timeout:g} s); retry when it has "
                    "finished, or give FileStore a longer timeout"
                ) from exc
            raise StoreError(f"{self.path}: cannot start a write: {exc}") from exc

    # ------------------------------------------------------------------ reading the log
    def _catch_up(self) -> None:
        """Apply the log rows other connections committed since this store last read the file."""
        with self._lock:
            if self._replaying:  # a read made while rows are being applied sees the graph as it is
                return
            db = self._connection()
            try:
                # Read before the rows: a commit landing in between is both applied now and seen as new
                # next time (one empty read), never missed.
                version = db.execute("PRAGMA data_version").fetchone()[0]
                if version != self._version:
                    self._apply_new_rows(db)
                    self._version = version
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot read the memory file: {exc}") from exc

    def _apply_new_rows(self, db: sqlite3.Connection) -> None:
        self._replaying = True
        try:
            for seq, body in db.execute("SELECT seq, body FROM graphmem_log WHERE seq > ? ORDER BY seq", (self._seq,)):
                try:
                    op, arg = decode_entry(body)
                except (ValueError, TypeError, KeyError) as exc:
                    raise StoreError(f"{self.path}: log row {seq} cannot be read ({exc}); the file is damaged or newer") from exc
                if op == "write":
                    EmbeddedStore.write(self, arg)
                else:
                    getattr(EmbeddedStore, op)(self, *arg)
                self._seq = seq
        finally:
            self._replaying = False

    def _rebuild(self, db: sqlite3.Connection) -> None:
        """Rebuild the graph in memory from the file alone (after a change that did not reach the file)."""
        lock = self._lock
        EmbeddedStore.__init__(self, self.dimensions)
        self._lock = lock
        self._seq = 0
        self._apply_new_rows(db)

    # ------------------------------------------------------------------ writes
    def ensure_schema(self) -> None:
        """Nothing to create: the file's tables are made when it is opened."""

    def write(self, batch: WriteBatch) -> None:
        plain = plain_batch(batch)
        self._append(encode_write(plain), lambda: EmbeddedStore.write(self, plain))

    def _change(self, method: str, arguments: list[Any]) -> None:
        """Log and apply a call of the embedded store's change ``method`` (``delete_namespace`` and the
        other ``delete_*``, see ``_wrap_methods``). Logged as the operation, not its effect: replaying it
        in a later process runs the same deletion on the same graph, so both hold the same memory."""
        try:
            body = encode_call(method, arguments)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{method}: its arguments cannot be logged ({exc})") from exc
        self._append(body, lambda: getattr(EmbeddedStore, method)(self, *arguments))

    def _append(self, body: str, apply: Callable[[], None]) -> None:
        """Under the file's write lock: catch up, apply the change in memory (its checks refuse it before
        anything changes), log it, commit. A change that did not reach the file is undone in memory."""
        with self._lock:
            db = self._connection()
            self._begin(db)
            applied = False
            try:
                version = db.execute("PRAGMA data_version").fetchone()[0]  # no one else commits until ours
                self._apply_new_rows(db)
                self._version = version
                try:
                    apply()
                except (ConflictError, StoreError):
                    raise  # refused by the checks, before the graph changed
                except BaseException:
                    applied = True  # may have changed part of the graph
                    raise
                applied = True
                seq = db.execute("INSERT INTO graphmem_log (body) VALUES (?)", (body,)).lastrowid
                db.execute("COMMIT")
            except BaseException as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if applied:
                    self._rebuild(db)
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"{self.path}: the write failed and nothing of it was kept: {exc}") from exc
                raise
            assert seq is not None
            self._seq = seq

    def close(self) -> None:
        """Close the file; the store's reads and writes raise ``StoreError`` from then on."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _catching_up(read: Callable[..., Any]) -> Callable[..., Any]:
    """``read`` after catching up with the file (``__wrapped__`` is the embedded store's own read).

    A guard: a "read" that adds or removes nodes is a change method that ``is_change`` does not know; the
    graph in memory is rebuilt from the file and the call fails, instead of the change living in this
    process only."""

    @functools.wraps(read)
    def caught_up(self: FileStore, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self._catch_up()
            before = self.graph.number_of_nodes()
            result = read(self, *args, **kwargs)
            if self.graph.number_of_nodes() != before:
                self._rebuild(self._connection())
                raise StoreError(
                    f"EmbeddedStore.{read.__name__} changed the graph, but FileStore takes it for a read and does not "
                    "log it: name it delete_* or give FileStore a method for it"
                )
            return result

    return caught_up


def _logging(method: Callable[..., Any]) -> Callable[..., Any]:
    """A change method of the embedded store other than ``write``, logged: its arguments (bound by name
    and position as the method takes them, defaults filled in) are the log row."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def logged(self: FileStore, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        self._change(method.__name__, list(bound.args[1:]))

    return logged


#: The public methods FileStore defines itself (``write`` and the lifecycle).
OWN_METHODS = frozenset(name for name, member in vars(FileStore).items() if callable(member) and not name.startswith("_"))


def _wrap_methods() -> None:
    """Give FileStore every other public method of the embedded store: a change (``is_change``) logged to
    the file, anything else a read that catches up first. They are found by looking, not listed by hand,
    so a method added to ``EmbeddedStore`` later is covered as well."""
    for name, member in inspect.getmembers(EmbeddedStore, inspect.isfunction):
        if name.startswith("_") or name in OWN_METHODS or isinstance(inspect.getattr_static(EmbeddedStore, name), staticmethod):
            continue
        setattr(FileStore, name, _logging(member) if is_change(name) else _catching_up(member))


_wrap_methods()
