"""``graphmem neo4j install|start|stop|status`` (also ``python -m graphmem.neo4j_server ...``).

Each action is its own sub-command, with its own description and options::

    graphmem neo4j install [--home DIR] [--force]
    graphmem neo4j start [--home DIR] [--lib-dir DIR] [--bolt-port N] [--http-port N] [--timeout S]
    graphmem neo4j stop [--home DIR] [--timeout S]
    graphmem neo4j status [--home DIR]
"""

from __future__ import annotations

import argparse
import logging
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from graphmem.neo4j_server.config import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    ENV_BOLT_PORT,
    ENV_GRAPHMEM_HOME,
    ENV_HOME,
    ENV_HTTP_PORT,
    ENV_LIB_DIR,
    ENV_PAGECACHE,
    ENV_PASSWORD,
    HOME_DIR_NAME,
    Neo4jServerConfig,
    ServerTimeouts,
)
from graphmem.neo4j_server.errors import Neo4jServerError
from graphmem.neo4j_server.lifecycle import start, stop
from graphmem.neo4j_server.maven import BROWSER_VERSION, NEO4J_VERSION, install
from graphmem.neo4j_server.status import Neo4jServerStatus, status
from graphmem.settings import SettingError

__all__ = ["add_actions", "add_subparser", "main", "run_command"]

#: Exit code of ``status`` when the server does not run, as in LSB init scripts.
NOT_RUNNING = 3

SERVER_ENVIRONMENT = f"""environment:
  {ENV_HOME}       the server's home (default ${ENV_GRAPHMEM_HOME}/{HOME_DIR_NAME},
                            else ~/.cache/graphmem/{HOME_DIR_NAME})
  {ENV_LIB_DIR}    an installed lib/ directory to reuse
  {ENV_BOLT_PORT}  the Bolt port (default 7687)
  {ENV_HTTP_PORT}  the HTTP port, the Browser's (default 7474)
  {ENV_PASSWORD}   the password of user {DEFAULT_USER} (default {DEFAULT_PASSWORD})
  {ENV_PAGECACHE}  the page cache size (default 4g)
  JAVA_HOME                 the Java 17 or 21 to run (default java on PATH)
Options beat the environment."""

_ACTIONS: dict[str, tuple[str, str]] = {
    "install": (
        "download the Neo4j server and Browser jars with Maven",
        (f"Download Neo4j {NEO4J_VERSION} Community and Neo4j Browser {BROWSER_VERSION} from Maven Central into "
        "the home's lib/ directory (needs Maven 3.8+). Does nothing when a complete install is already there, "
        "unless --force."),
    ),
    "start": (
        "start the server in the background and wait until it answers",
        ("Start graphmem's own Neo4j server in the background (installing the jars first if they are missing) "
        "and wait until Bolt accepts the password and the Browser answers. It keeps running after this command "
        f"ends; harmless when it already runs. User {DEFAULT_USER}, password ${ENV_PASSWORD} or the default."),
    ),
    "stop": (
        "stop the server cleanly",
        ("Stop the server started for this home: SIGTERM, so Neo4j checkpoints and shuts down cleanly "
        "(10-15 s for a small store), then SIGKILL if it is still running after --timeout seconds."),
    ),
    "status": (
        "say whether the server runs, and where",
        ("Say whether the server for this home runs, with its pid, Bolt URI and Browser address. "
        f"Exit code 0 when it runs, {NOT_RUNNING} when it does not."),
    ),
}


def _add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", type=Path, default=None,
                        help=f"the server's home (default ${ENV_HOME}, $GRAPHMEM_HOME/{HOME_DIR_NAME} "
                             f"or ~/.cache/graphmem/{HOME_DIR_NAME})")


def _add_start_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lib-dir", type=Path, default=None, help=f"reuse an installed lib dir (default ${ENV_LIB_DIR})")
    parser.add_argument("--bolt-port", type=int, default=None, help=f"Bolt port (default ${ENV_BOLT_PORT} or 7687)")
    parser.add_argument("--http-port", type=int, default=None, help=f"HTTP port (default ${ENV_HTTP_PORT} or 7474)")
    parser.add_argument("--timeout", type=float, default=None,
                        help=f"seconds to wait for Bolt and HTTP (default {ServerTimeouts.start:.0f})")


def _add_install_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="download again even when installed")


def _add_stop_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, default=None,
                        help=f"seconds to wait for a clean shutdown before SIGKILL (default {ServerTimeouts.stop:.0f})")


def add_actions(parser: argparse.ArgumentParser) -> None:
    """Add the ``install``, ``start``, ``stop`` and ``status`` sub-commands to ``parser``."""
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    extra_options: dict[str, Callable[[argparse.ArgumentParser], None]] = {
        "install": _add_install_options, "start": _add_start_options, "stop": _add_stop_options,
    }
    for name, (summary, description) in _ACTIONS.items():
        action = actions.add_parser(name, help=summary, description=textwrap.fill(description, 100), epilog=SERVER_ENVIRONMENT,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        _add_home_option(action)
        if name in extra_options:
            extra_options[name](action)


def add_subparser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``neo4j`` on an existing CLI: ``graphmem neo4j start`` etc.

    The sub-parser's ``func`` default is :func:`run_command`, so a CLI that does
    ``args.func(args)`` needs nothing else.
    """
    parser = subparsers.add_parser(
        "neo4j", help="manage the local Neo4j 5.26 server",
        description=textwrap.fill("Install, start, stop and check graphmem's own Neo4j 5.26 Community server, run "
                                  "from Maven jars (Java 17 or 21; no Docker). `graphmem neo4j ACTION --help` "
                                  "tells each action.", 100),
        epilog=SERVER_ENVIRONMENT, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_actions(parser)
    parser.set_defaults(func=run_command)
    return parser


def _print_status(st: Neo4jServerStatus) -> None:
    if st.running:
        print(f"Neo4j {st.version or '?'} running (pid {st.pid})")
        print(f"  bolt:    {st.bolt_uri}")
        print(f"  browser: {st.http_url}/browser/")
    else:
        print(f"Neo4j not running (home {st.home})")


def _run_install(args: argparse.Namespace) -> int:
    config = Neo4jServerConfig.from_env(args.home)
    started = time.monotonic()
    lib = install(config.home, force=args.force, mvn=config.mvn, timeout=config.timeouts.install)
    print(f"Neo4j {NEO4J_VERSION} + Browser {BROWSER_VERSION} installed in {lib} "
          f"({time.monotonic() - started:.1f}s)")
    return 0


def _run_start(args: argparse.Namespace) -> int:
    config = Neo4jServerConfig.from_env(args.home, lib_dir=args.lib_dir, bolt_port=args.bolt_port, http_port=args.http_port)
    _print_status(start(config, timeout=args.timeout))
    print(f"  user:    {DEFAULT_USER} (password from ${ENV_PASSWORD} or the default)")
    return 0


def _run_stop(args: argparse.Namespace) -> int:
    print("Neo4j stopped" if stop(Neo4jServerConfig.from_env(args.home), timeout=args.timeout) else "Neo4j was not running")
    return 0


def _run_status(args: argparse.Namespace) -> int:
    st = status(Neo4jServerConfig.from_env(args.home))
    _print_status(st)
    return 0 if st.running else NOT_RUNNING


_RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "install": _run_install, "start": _run_start, "stop": _run_stop, "status": _run_status,
}


def run_command(args: argparse.Namespace) -> int:
    """Execute a parsed ``install|start|stop|status`` command; return an exit code."""
    try:
        return _RUNNERS[args.action](args)
    except (Neo4jServerError, SettingError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m graphmem.neo4j_server``."""
    parser = argparse.ArgumentParser(
        prog="python -m graphmem.neo4j_server", description="Manage graphmem's own Neo4j 5.26 Community server.",
        epilog=SERVER_ENVIRONMENT, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    add_actions(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(message)s")
    return run_command(args)
