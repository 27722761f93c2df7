"""``graphmem stats``, ``namespaces``, ``forget``, ``export`` and ``import``: a memory as a whole.

    graphmem namespaces
    graphmem stats agent-1 --json
    graphmem forget user-1 --session s3          # or --episode run-1; with neither, the whole namespace
    graphmem export agent-1 > memory.jsonl
    graphmem import memory.jsonl -n agent-1-copy

Only ``import`` loads the embedding model (it writes); the others need the store alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from graphmem.commands.options import (
    ENVIRONMENT,
    UsageError,
    add_json_option,
    add_store_options,
    open_memory,
    open_store_from,
    print_json,
)
from graphmem.formats import FORMATS

console = Console()


def run_namespaces(args: argparse.Namespace) -> int:
    store = open_store_from(args)
    try:
        names = store.namespaces()
    finally:
        store.close()
    if args.json:
        print_json({"namespaces": names})
    else:
        for name in names:
            console.print(escape(name))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from graphmem.manage import summary

    store = open_store_from(args)
    try:
        found = summary(store, args.namespace)
    finally:
        store.close()
    if args.json:
        print_json(found)
        return 0
    console.print(f"[bold]{escape(args.namespace)}[/bold]")
    for row in found["episodes"]:
        size = (f"steps up to t={row['last_t']}" if row["kind"] == "trajectory"
                else f"{row['sessions']} sessions, {row['turns']} turns, {row['boxes']} topic boxes")
        console.print(f"  {row['kind']} {escape(str(row['episode']))}: {size}")
    console.print("  " + ", ".join(f"{name} {count}" for name, count in found["counts"].items()))
    return 0


def run_forget(args: argparse.Namespace) -> int:
    from graphmem.manage import episodes_of, forget

    store = open_store_from(args)
    try:
        episodes_of(store, args.namespace)  # an unknown namespace is an error, not a silent no-op
        what = forget(store, args.namespace, episode=args.episode, session=args.session)
    finally:
        store.close()
    if args.json:
        print_json({"namespace": args.namespace, "episode": args.episode, "session": args.session, "forgotten": what})
    else:
        console.print(f"forgot {escape(what)}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from graphmem.transfer import export_lines

    store = open_store_from(args)
    try:
        lines = export_lines(store, args.namespace)
        first = next(lines)  # the namespace is checked before anything is written
        out = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
        try:
            out.write(first + "\n")
            for line in lines:
                out.write(line + "\n")
        finally:
            if args.output:
                out.close()
    finally:
        store.close()
    return 0


def run_import(args: argparse.Namespace) -> int:
    from graphmem.records import validate_id
    from graphmem.transfer import import_export, read_export

    try:
        with args.file.open(encoding="utf-8") as handle:
            export = read_export(handle, str(args.file))  # every line checked before the model loads
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{args.file}: cannot be read: {exc}") from None
    namespace = validate_id(args.namespace, "import", "namespace") if args.namespace else export.namespace
    with open_memory(open_store_from(args)) as mem:
        report = import_export(mem, export, namespace)
    if args.json:
        print_json({"namespace": namespace, "episodes": report.episodes, "steps": report.steps, "turns": report.turns,
                    "unchanged": report.unchanged})
    else:
        console.print(f"imported {report.episodes} episode(s) into {escape(namespace)!r}: {report.steps} steps and "
                      f"{report.turns} turns written, {report.unchanged} already stored")
    return 0


def add_subparsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``stats``, ``namespaces``, ``forget``, ``export`` and ``import``."""
    raw = argparse.RawDescriptionHelpFormatter

    def parser_for(name: str, text: str, epilog: str = ENVIRONMENT) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".", epilog=epilog, formatter_class=raw)

    namespaces = parser_for("namespaces", "list the namespaces the memory holds")
    namespaces.set_defaults(func=run_namespaces)

    stats = parser_for("stats", "what a namespace holds: its episodes, nodes per label, relationships per type")
    stats.add_argument("namespace", metavar="NS")
    stats.set_defaults(func=run_stats)

    forget = parser_for("forget", "delete one episode, one dialogue session, or (with neither) the whole namespace")
    forget.add_argument("namespace", metavar="NS")
    which = forget.add_mutually_exclusive_group()
    which.add_argument("--episode", default=None, help="delete this episode (a trajectory or a dialogue)")
    which.add_argument("--session", default=None, help="delete this dialogue session")
    forget.set_defaults(func=run_forget)

    export = parser_for("export", "write a namespace's steps and sessions as JSONL (to stdout, or -o FILE)",
                        FORMATS + "\n" + ENVIRONMENT)
    export.add_argument("namespace", metavar="NS")
    export.add_argument("-o", "--output", type=Path, default=None, help="write to this file instead of stdout")
    export.set_defaults(func=run_export)

    imported = parser_for("import", "re-create a namespace from an export (graphmem export)", FORMATS + "\n" + ENVIRONMENT)
    imported.add_argument("file", type=Path, metavar="FILE", help="an export file")
    imported.add_argument("-n", "--namespace", default=None, help="the namespace to write (default: the export's)")
    imported.set_defaults(func=run_import)

    for parser in (namespaces, stats, forget, imported):
        add_json_option(parser)
    for parser in (namespaces, stats, forget, export, imported):
        add_store_options(parser)
