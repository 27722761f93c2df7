"""``graphmem recall``, ``graphmem search`` and ``graphmem answer``: ask a namespace a question.

    graphmem recall agent-1 "where was I the last time I drank water?" --budget 150
    graphmem answer agent-1 "how many saplings did I collect?" --json
    graphmem recall agent-1 --query '{"op": "count", "pattern": {"kind": "collect", "obj": "wood"}}'
    graphmem search user-1 "Pepper's vet visit" -k 5
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from graphmem.commands.options import (
    ENVIRONMENT,
    UsageError,
    add_json_option,
    add_store_options,
    answerer_from_env,
    evidence_json,
    open_memory,
    open_store_from,
    positive_int,
    print_json,
)

console = Console()


def _question(args: argparse.Namespace) -> Any:
    """The question as text, or with ``--query`` the trajectory query it spells (checked here, before
    any model loads)."""
    if not args.query:
        if not args.question.strip():
            raise UsageError("the question is empty")
        return args.question
    from graphmem.query.serialize import from_json

    try:
        document = json.loads(args.question)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--query: the question is not JSON ({exc.msg} at column {exc.colno})") from None
    from_json(document)  # QueryError names what is wrong
    return document


def _run(args: argparse.Namespace, work: Any) -> int:
    """Check the question and the namespace, then open the memory (loading the model) and ``work`` on it."""
    from graphmem.manage import episodes_of

    question = _question(args)
    store = open_store_from(args)
    try:
        episodes_of(store, args.namespace)
    except BaseException:
        store.close()
        raise
    with open_memory(store) as mem:
        return int(work(mem, question))


def run_recall(args: argparse.Namespace) -> int:
    def work(mem: Any, question: Any) -> int:
        evidence = mem.recall(args.namespace, question, budget=args.budget)
        if args.json:
            print_json({"namespace": args.namespace, "question": question, "evidence": evidence_json(evidence)})
        else:
            _print_evidence(evidence)
        return 0

    return _run(args, work)


def run_answer(args: argparse.Namespace) -> int:
    def work(mem: Any, question: Any) -> int:
        answerer = None if args.executor else answerer_from_env()
        result = mem.answer(args.namespace, question, budget=args.budget, answerer=answerer)
        if args.json:
            print_json({"namespace": args.namespace, "question": question, "answer": result.text,
                        "answerer": result.answerer, "evidence": evidence_json(result.evidence)})
        else:
            console.print(f"[bold]{escape(str(result.text)) if result.text is not None else '(no answer)'}[/bold]")
            _print_evidence(result.evidence)
        return 0

    return _run(args, work)


def run_search(args: argparse.Namespace) -> int:
    def work(mem: Any, question: Any) -> int:
        from graphmem.manage import unit_text
        from graphmem.store.rows import read_rows

        hits = mem.search(args.namespace, question, k=args.k)
        units = read_rows(mem.store, args.namespace, [h.key for h in hits])
        rows = [{"source_id": h.source_id, "score": round(h.score, 6), "kind": h.key.split(":", 1)[0],
                 "text": unit_text(units.get(h.key))} for h in hits]
        if args.json:
            print_json({"namespace": args.namespace, "question": question, "hits": rows})
        else:
            for row in rows:
                console.print(f"[dim]{row['score']:.4f}[/dim] {escape(row['source_id'])}  {escape(row['text'])}")
        return 0

    return _run(args, work)


def _print_evidence(evidence: Any) -> None:
    console.print(escape(evidence.text) if evidence.text else "[dim](no evidence)[/dim]")
    sources = ", ".join(evidence.source_ids)
    console.print(f"[dim]{evidence.tokens}/{evidence.budget} tokens · sources: {escape(sources) or 'none'}[/dim]")


def add_subparsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``recall``, ``search`` and ``answer``."""
    helps = {
        "recall": ("evidence for a question, packed within a token budget", run_recall),
        "answer": ("answer a question from its evidence (the executor, or the LLM named by GRAPHMEM_LLM_*)", run_answer),
        "search": ("the units (steps, turns) that match a question best, ranked", run_search),
    }
    for name, (text, func) in helps.items():
        parser = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".", epilog=ENVIRONMENT,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("namespace", metavar="NS", help="the namespace (one agent's or user's memory)")
        parser.add_argument("question", metavar="QUESTION", help="the question (with --query: a trajectory query as JSON)")
        if name == "search":
            parser.add_argument("-k", type=positive_int, default=10, help="how many hits (default 10)")
        else:
            default = 300 if name == "recall" else 150
            parser.add_argument("--budget", type=positive_int, default=default,
                                help=f"evidence budget in cl100k_base tokens (default {default})")
            parser.add_argument("--query", action="store_true",
                                help="QUESTION is a trajectory query as JSON (graphmem.query.serialize.query_schema())")
        if name == "answer":
            parser.add_argument("--executor", action="store_true", help="use the deterministic executor even when an LLM is configured")
        add_json_option(parser)
        add_store_options(parser)
        parser.set_defaults(func=func)
        if name == "search":
            parser.set_defaults(query=False)
