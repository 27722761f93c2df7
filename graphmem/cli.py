"""The ``graphmem`` command line.

    graphmem demo                      # the main job on the memory file (or GRAPHMEM_NEO4J_URI)
    graphmem neo4j install|start|stop|status
    graphmem ingest FILE... --namespace NS   # bulk, resumable ingestion of JSONL steps / chat logs
    graphmem recall|answer NS "question" [--budget N] [--json]
    graphmem search NS "question" [-k N] [--json]
    graphmem stats NS | namespaces | forget NS [--episode E | --session S]
    graphmem export NS > memory.jsonl; graphmem import memory.jsonl [-n NS]
    graphmem mcp [--http PORT]         # a Model Context Protocol server

The memory commands live in ``graphmem.commands``; the JSONL formats are described in ``graphmem.formats``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib import resources

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

console = Console()

TRAJECTORY_QUESTIONS = (
    "What did I do two steps after I first placed a table?",
    "Where was I the last time I drank water?",
    "How many saplings did I have right after I first collected stone?",
    "At which step did I collect wood for the third time?",
)
DIALOGUE_QUESTIONS = (
    "What did the physiotherapist tell Maya to do?",
    "What happened with Pepper in June 2024?",
    "How did Maya's half marathon plan develop?",
)


def _demo(args: argparse.Namespace) -> int:
    from graphmem.commands.options import neo4j_auth
    from graphmem.loaders.chat_jsonl import load_chat_jsonl
    from graphmem.loaders.jsonl_steps import read_steps_jsonl
    from graphmem.memory import Memory
    from graphmem.recall.expansion import vocabulary_for
    from graphmem.settings import Settings

    data = resources.files("graphmem").joinpath("data")
    settings = Settings.from_environment()
    # The same credentials as every other command (graphmem's own server's password by default).
    auth = neo4j_auth(settings=settings) if settings.neo4j_uri else None
    with Memory(settings.neo4j_uri, auth=auth) as mem:
        backend = type(mem.store).__name__
        console.print(f"[bold]graphmem demo[/bold] on the {backend} backend, budget {args.budget} tokens (cl100k_base)")
        with resources.as_file(data.joinpath("demo_crafter.jsonl")) as path:
            steps = read_steps_jsonl(path)
        report = mem.add_steps("demo-agent", "crafter-seed-0", steps)
        console.print(f"trajectory: {len(steps)} Crafter steps ({report.written} written, {report.unchanged} already stored)")
        for question in TRAJECTORY_QUESTIONS:
            answer = mem.answer("demo-agent", question, budget=args.budget)
            body = f"{escape(answer.evidence.text)}\n\n[dim]{answer.evidence.tokens} tokens · answer: {escape(str(answer.text))}[/dim]"
            console.print(Panel(body, title=escape(question), title_align="left"))

        with resources.as_file(data.joinpath("demo_dialogue.jsonl")) as path:
            conversations = load_chat_jsonl(path)
        for conversation in conversations:
            for session in conversation.sessions:
                mem.add_session("demo-user", session.session_id, session.turns, started_at=session.started_at)
        console.print(f"dialogue: {sum(len(s.turns) for c in conversations for s in c.sessions)} turns in "
                      f"{sum(len(c.sessions) for c in conversations)} sessions")
        # Rare-word expansion's vocabulary table: built on a machine's first dialogue recall (~20 s), then
        # read from ~/.cache/graphmem/expansion in a blink.
        with console.status("preparing the query-expansion vocabulary (the first time takes ~20 s)"):
            vocabulary_for(mem.embedder)
        for question in DIALOGUE_QUESTIONS:
            evidence = mem.recall("demo-user", question, budget=args.budget)
            body = f"{escape(evidence.text)}\n\n[dim]{evidence.tokens} tokens · sources: {escape(', '.join(evidence.source_ids))}[/dim]"
            console.print(Panel(body, title=escape(question), title_align="left"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from graphmem.commands import ask, manage, serve
    from graphmem.commands.options import ENVIRONMENT, version
    from graphmem.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="graphmem", description="Episodic memory for long-horizon agents.", epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument("--version", action="version", version=f"graphmem {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="ingest a bundled trajectory and dialogue, ask questions, print evidence")
    demo.add_argument("--budget", type=int, default=150, help="evidence budget in cl100k_base tokens")
    demo.set_defaults(func=_demo)

    from graphmem import neo4j_server

    neo4j_server.add_subparser(sub)

    from graphmem.ingest import add_ingest_subparser

    ingest = add_ingest_subparser(sub)
    ingest.epilog = FORMATS + "\n" + ENVIRONMENT
    ingest.formatter_class = argparse.RawDescriptionHelpFormatter
    ask.add_subparsers(sub)
    manage.add_subparsers(sub)
    serve.add_subparsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from graphmem import neo4j_server
    from graphmem.commands.options import BAD_INPUT, FAILED, UsageError
    from graphmem.errors import (
        GraphmemError,
        InvalidArgumentError,
        InvalidRecordError,
        NotFoundError,
    )
    from graphmem.query.algebra import QueryError

    errors = Console(stderr=True, soft_wrap=True)  # one line per message, for logs and scripts
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (UsageError, InvalidRecordError, InvalidArgumentError, NotFoundError, QueryError) as exc:
        # Bad input: said before anything was written or any model loaded.
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        return BAD_INPUT
    except (GraphmemError, neo4j_server.Neo4jServerError) as exc:
        # Expected failures print what went wrong and what to do; anything else keeps its traceback.
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        return FAILED


if __name__ == "__main__":
    sys.exit(main())
