"""Opening a Neo4j driver, with errors that say what is actually wrong.

* a URI that is not a Bolt URI is refused before anything connects (``InvalidArgumentError``): an
  ``http://`` address (Neo4j's HTTP port) is told to use ``bolt://`` or ``neo4j://``; a URI without a host
  (``bolt://``, ``bolt:/host``), with a bad port, a path, or credentials is refused instead of the driver
  quietly connecting to localhost:7687 or dropping the part;
* a wrong user or password is "authentication failed for user ... at URI" (``StoreError``), not "cannot
  reach Neo4j";
* a server that does not answer is "cannot reach Neo4j at URI", with how to start one;
* a database the server does not hold is named, with the ones it does hold.

>>> checked_uri("bolt://127.0.0.1:7687")
'bolt://127.0.0.1:7687'
>>> checked_uri("http://localhost:7474")
Traceback (most recent call last):
graphmem.errors.InvalidArgumentError: uri 'http://localhost:7474' is Neo4j's HTTP address; graphmem talks to Neo4j over Bolt: use bolt://localhost:7687 or neo4j://localhost:7687
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from neo4j import Driver, GraphDatabase, NotificationDisabledClassification
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
)

from graphmem.cypher_files import cypher
from graphmem.errors import InvalidArgumentError, StoreError
from graphmem.records import short, unicode_problem

#: The URI schemes of the Bolt protocol (``+s``: TLS, ``+ssc``: TLS with a self-signed certificate).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: Notifications the server is asked not to send. graphmem's statements name every label and property they
#: may meet, and a database that holds none of them yet (a first run) answers each such name with an
#: UNRECOGNIZED warning ("the property `seq` does not exist"), which the driver logs on stderr. Deprecation,
#: performance and other warnings still come.
DISABLED_NOTIFICATIONS = (NotificationDisabledClassification.UNRECOGNIZED,)


def checked_uri(uri: object) -> str:
    """``uri`` if it is a Bolt URI naming a host; else ``InvalidArgumentError`` saying what is wrong."""
    if not isinstance(uri, str) or not uri.strip():
        raise InvalidArgumentError("uri", f"must be a Neo4j URI such as bolt://localhost:7687, got {short(uri)}")
    problem = unicode_problem(uri)
    if problem is not None or any(c.isspace() for c in uri):
        raise InvalidArgumentError("uri", f"{short(uri)} {problem or 'holds white space'}")
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    host = parts.hostname or "localhost"
    if scheme in ("http", "https"):
        raise InvalidArgumentError(
            "uri", f"{short(uri)} is Neo4j's HTTP address; graphmem talks to Neo4j over Bolt: use bolt://{host}:7687 "
            f"or neo4j://{host}:7687"
        )
    if scheme not in BOLT_SCHEMES:
        raise InvalidArgumentError(
            "uri", f"{short(uri)} must start with bolt:// or neo4j:// (or bolt+s://, neo4j+s://, ...), e.g. bolt://localhost:7687"
        )
    if not parts.hostname:
        raise InvalidArgumentError("uri", f"{short(uri)} names no host; write it as {scheme}://host:7687")
    try:
        _ = parts.port  # parsed on access
    except ValueError:
        raise InvalidArgumentError("uri", f"{short(uri)} has a port that is not a number from 0 to 65535") from None
    if parts.username is not None or parts.password is not None:
        raise InvalidArgumentError("uri", f"{short(uri)} holds credentials: give the user and password as auth= "
                                          "(GRAPHMEM_NEO4J_USER, GRAPHMEM_NEO4J_PASSWORD), not in the URI")
    if parts.path not in ("", "/") or parts.fragment:
        raise InvalidArgumentError("uri", f"{short(uri)} has a path: a Neo4j URI names a server only; choose the database "
                                          "with database= (GRAPHMEM_NEO4J_DATABASE)")
    if parts.query and not scheme.startswith("neo4j"):
        raise InvalidArgumentError("uri", f"{short(uri)}: only neo4j:// URIs take a routing context (?...)")
    return uri


def checked_auth(auth: object) -> tuple[str, str] | None:
    """``auth`` if it is None or a (user, password) pair of texts."""
    if auth is None:
        return None
    if not isinstance(auth, (tuple, list)) or len(auth) != 2 or not all(isinstance(part, str) for part in auth):
        raise InvalidArgumentError("auth", f"must be a (user, password) pair of strings, got {type(auth).__name__}")
    for part in auth:
        if unicode_problem(part) is not None:
            raise InvalidArgumentError("auth", "holds a user or password that is not valid Unicode text")
    return (auth[0], auth[1])


def checked_database(database: object) -> str | None:
    """``database`` if it is None or a non-empty name."""
    if database is None:
        return None
    if not isinstance(database, str) or not database.strip() or unicode_problem(database) is not None:
        raise InvalidArgumentError("database", f"must be a database name or None, got {short(database)}")
    return database


def connect(uri: object, auth: object, database: object, **config: Any) -> Driver:
    """A driver connected to the Neo4j server at ``uri`` whose ``database`` (None: the server's default)
    exists; ``config`` goes to ``GraphDatabase.driver`` (by default without the notifications
    ``DISABLED_NOTIFICATIONS`` names)."""
    address = checked_uri(uri)
    credentials = checked_auth(auth)
    name = checked_database(database)
    config.setdefault("notifications_disabled_classifications", list(DISABLED_NOTIFICATIONS))
    try:
        driver = GraphDatabase.driver(address, auth=credentials, **config)
    except (ValueError, DriverError) as exc:
        raise InvalidArgumentError("uri", f"{short(address)} is not a URI the Neo4j driver takes: {exc}") from exc
    try:
        driver.verify_connectivity()
        if name is not None:
            _check_database(driver, address, name)
    except AuthError as exc:
        driver.close()
        user = credentials[0] if credentials else "(none)"
        raise StoreError(
            f"authentication failed for user {user!r} at {address}: check the user and password (auth=, "
            f"GRAPHMEM_NEO4J_USER / GRAPHMEM_NEO4J_PASSWORD, or --user / --password) ({exc.message})"
        ) from exc
    except StoreError:
        driver.close()
        raise
    except (ServiceUnavailable, ValueError, Neo4jError, DriverError, OSError) as exc:
        driver.close()
        raise StoreError(
            f"cannot reach Neo4j at {address}: {exc}. Start one with `graphmem neo4j start`, "
            "or unset GRAPHMEM_NEO4J_URI to use the embedded backend."
        ) from exc
    return driver


def _check_database(driver: Driver, uri: str, database: str) -> None:
    """``StoreError`` naming ``database`` and the databases there are when the server does not hold it.
    A user who may not list the databases is not stopped here (the first query says what is wrong)."""
    try:
        record = driver.execute_query(cypher("admin/databases")).records[0]
    except ClientError as exc:
        if isinstance(exc, AuthError):
            raise
        return
    names = [str(n) for n in record["names"]] + [str(a) for aliases in record["aliases"] for a in aliases]
    if database.lower() not in {n.lower() for n in names}:
        raise StoreError(
            f"Neo4j at {uri} has no database {database!r} (databases: {', '.join(sorted(names))}); "
            "create it, or leave the database unset (GRAPHMEM_NEO4J_DATABASE, --database) for the server's default"
        )
