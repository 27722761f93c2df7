"""``graphmem mcp``: serve the memory to MCP clients (Claude Desktop, IDEs, agent frameworks).

    graphmem mcp                 # stdio: the client starts this command and talks over its stdin/stdout
    graphmem mcp --http 8765     # streamable HTTP at http://127.0.0.1:8765/mcp

The tools are those of ``graphmem.mcp_server``.
"""

from __future__ import annotations

import argparse

from graphmem.commands.options import (
    ENVIRONMENT,
    add_store_options,
    open_store_from,
    positive_int,
)


def run_mcp(args: argparse.Namespace) -> int:
    from graphmem.mcp_server import serve

    serve(open_store_from(args), http_port=args.http, host=args.host)
    return 0


def add_subparsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``mcp``."""
    parser = sub.add_parser(
        "mcp",
        help="serve the memory as a Model Context Protocol server (stdio, or --http PORT)",
        description="Serve the memory to MCP clients: tools remember_steps, remember_session, recall, search, "
        "answer, trajectory_query, list_namespaces, stats, forget. Over stdio by default (stdout carries the "
        "protocol; logs go to stderr).",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--http", type=positive_int, default=None, metavar="PORT",
                        help="serve streamable HTTP on this port (at /mcp) instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="the address --http listens on (default 127.0.0.1)")
    add_store_options(parser)
    parser.set_defaults(func=run_mcp)
