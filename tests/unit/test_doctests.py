"""Every ``>>>`` example in graphmem's docstrings runs and passes: one case per module of the package.

The examples run on the embedded backend (``Memory()`` with no URI); a few load the real embedding model
and spaCy, as the library does.
"""

from __future__ import annotations

import doctest
import functools
import importlib
import pkgutil

import pytest

import graphmem
import graphmem.loaders

#: The trajectory query language's modules: each has examples, and the walk must reach them all.
QUERY_MODULES = ("graphmem.query.algebra", "graphmem.query.serialize", "graphmem.query.grammar", "graphmem.query.lexicon",
                 "graphmem.query.resolve", "graphmem.query.answers", "graphmem.query.normalize", "graphmem.query.wordforms")
#: Importing ``graphmem.__main__`` runs the command line and exits.
SKIPPED = frozenset({"graphmem.__main__"})
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: The package holds at least this many examples, so the tests cannot pass by finding none.
MIN_EXAMPLES = 50
#: Environment that would point ``Memory()`` in the examples at a Neo4j server instead of the embedded store.
SERVER_VARIABLES = ("GRAPHMEM_NEO4J_URI", "GRAPHMEM_NEO4J_USER", "GRAPHMEM_NEO4J_PASSWORD", "GRAPHMEM_NEO4J_DATABASE")

# ``graphmem.loaders`` lives in the top-level ``loaders/`` folder (mapped in pyproject.toml), so an
# editable install's ``graphmem.__path__`` does not reach it: walk it on its own.
MODULES = sorted(
    {
        "graphmem",
        *(m.name for m in pkgutil.walk_packages(graphmem.__path__, "graphmem.")),
        *(m.name for m in pkgutil.walk_packages(graphmem.loaders.__path__, "graphmem.loaders.")),
    }
    - SKIPPED
)


@functools.cache
def run_examples(name: str) -> tuple[doctest.TestResults, str]:
    """Run the module's examples once (``doctest.testmod``'s finder and globals); the report of failures."""
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    failed = attempted = 0
    for test in doctest.DocTestFinder().find(module, name):
        result = runner.run(test, out=report.append)
        failed, attempted = failed + result.failed, attempted + result.attempted
    return doctest.TestResults(failed, attempted), "".join(report)


@pytest.fixture(autouse=True)
def embedded_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in SERVER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    # The examples show what an empty memory answers; a module's examples would share one memory file.
    monkeypatch.setenv("GRAPHMEM_PATH", ":memory:")


def test_walk_finds_the_package_modules():
    expected = {"graphmem.memory", "graphmem.recall.trajectory", "graphmem.store.embedded", "graphmem.write.loom.topic_loom",
                "graphmem.loaders.chat_jsonl", "graphmem.loaders.dialogue", "graphmem.query", *QUERY_MODULES}
    assert expected <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name: str):
    result, report = run_examples(name)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed:\n{report}"


@pytest.mark.parametrize("name", QUERY_MODULES)
def test_the_query_modules_have_examples(name: str):
    assert run_examples(name)[0].attempted > 0, f"{name} has no docstring examples"


def test_the_package_has_examples():
    attempted = sum(run_examples(name)[0].attempted for name in MODULES)  # cached after the cases above
    assert attempted >= MIN_EXAMPLES, f"only {attempted} docstring examples in graphmem"
