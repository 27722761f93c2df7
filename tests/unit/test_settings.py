"""graphmem's environment variables: read into ``Settings`` when asked (never at import time), empty values
as unset where the callers always took them so, bad numbers refused by variable name; and no graphmem
module writes the environment when it is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.embed import HUB_ENVIRONMENT
from graphmem.settings import VARIABLES, SettingError, Settings


def test_an_empty_environment_gives_the_defaults() -> None:
    assert Settings.from_environment({}) == Settings()
    assert Settings().neo4j_user == "neo4j" and Settings().torch_threads == 1 and not Settings().llm_configured


def test_every_variable_has_its_field() -> None:
    environ = {
        "GRAPHMEM_PATH": "/data/agent.db", "GRAPHMEM_NEO4J_URI": "bolt://db:7687", "GRAPHMEM_NEO4J_USER": "maya",
        "GRAPHMEM_NEO4J_PASSWORD": "secret-pw", "GRAPHMEM_NEO4J_DATABASE": "agents",
        "GRAPHMEM_LLM_BASE_URL": "http://llm:8000/v1", "GRAPHMEM_LLM_MODEL": "tiny", "GRAPHMEM_LLM_API_KEY": "k",
        "GRAPHMEM_HOME": "/cache/gm", "GRAPHMEM_TORCH_THREADS": "4", "GRAPHMEM_NEO4J_HOME": "/srv/neo4j",
        "GRAPHMEM_NEO4J_LIB_DIR": "/srv/lib", "GRAPHMEM_NEO4J_BOLT_PORT": "7688", "GRAPHMEM_NEO4J_HTTP_PORT": "7475",
        "GRAPHMEM_NEO4J_PAGECACHE": "8g",
    }
    assert set(environ) == set(VARIABLES.values())
    settings = Settings.from_environment(environ)
    assert settings == Settings(
        path="/data/agent.db", neo4j_uri="bolt://db:7687", neo4j_user="maya", neo4j_password="secret-pw",
        neo4j_database="agents", llm_base_url="http://llm:8000/v1", llm_model="tiny", llm_api_key="k",
        home=Path("/cache/gm"), torch_threads=4, neo4j_home=Path("/srv/neo4j"), neo4j_lib_dir=Path("/srv/lib"),
        neo4j_bolt_port=7688, neo4j_http_port=7475, neo4j_pagecache="8g",
    )
    assert settings.llm_configured


def test_empty_values_are_unset_except_where_empty_says_something() -> None:
    settings = Settings.from_environment({name: "" for name in VARIABLES.values() if name != "GRAPHMEM_TORCH_THREADS"})
    # The user, the password, the database and the API key were always taken as given, empty or not.
    assert (settings.neo4j_user, settings.neo4j_password, settings.neo4j_database, settings.llm_api_key) == ("", "", "", "")
    unset = Settings(neo4j_user="", neo4j_password="", neo4j_database="", llm_api_key="")
    assert settings == unset


@pytest.mark.parametrize(
    "variable, value, message",
    [("GRAPHMEM_NEO4J_BOLT_PORT", "x", "is not a port number"), ("GRAPHMEM_NEO4J_HTTP_PORT", "74.74", "is not a port number"),
     ("GRAPHMEM_TORCH_THREADS", "many", "is not a whole number"), ("GRAPHMEM_TORCH_THREADS", "", "is not a whole number")],
)
def test_a_value_that_cannot_be_read_names_its_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(SettingError, match=f"^{variable}={value!r} {message}"):
        Settings.from_environment({variable: value})


def test_fewer_than_one_thread_is_one() -> None:
    assert Settings.from_environment({"GRAPHMEM_TORCH_THREADS": "0"}).torch_threads == 1


def test_the_environment_is_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_PAGECACHE", "2g")
    assert Settings.from_environment().neo4j_pagecache == "2g"
    monkeypatch.delenv("GRAPHMEM_NEO4J_PAGECACHE")
    assert Settings.from_environment().neo4j_pagecache is None


def test_the_readers_follow_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from graphmem.commands.options import answerer_from_env
    from graphmem.store.open import open_store
    from graphmem.tokens import _cache_dir

    monkeypatch.delenv("GRAPHMEM_NEO4J_URI", raising=False)
    monkeypatch.setenv("GRAPHMEM_PATH", ":memory:")
    assert type(open_store()).__name__ == "EmbeddedStore"
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path))
    assert _cache_dir() == tmp_path / "tiktoken"
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1/")
    monkeypatch.setenv("GRAPHMEM_LLM_MODEL", "")
    assert answerer_from_env() is None  # an empty model names no endpoint
    monkeypatch.setenv("GRAPHMEM_LLM_MODEL", "tiny")
    answerer = answerer_from_env()
    assert (answerer.base_url, answerer.model) == ("http://127.0.0.1:9/v1", "tiny")


IMPORT_EVERY_MODULE = """
import importlib, json, os, pkgutil
before = dict(os.environ)
import graphmem, graphmem.loaders
names = sorted(m.name for m in pkgutil.walk_packages(graphmem.__path__, "graphmem.") if m.name != "graphmem.__main__")
names += sorted(m.name for m in pkgutil.walk_packages(graphmem.loaders.__path__, "graphmem.loaders."))
for name in names:
    importlib.import_module(name)
after = dict(os.environ)
print(json.dumps({"modules": len(names), "changed": sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))}))
"""


def test_no_module_writes_the_environment_when_imported() -> None:
    # Without the variables the embedding model's loader sets (this process may have loaded it already).
    environ = {k: v for k, v in os.environ.items() if k not in HUB_ENVIRONMENT}
    done = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE], capture_output=True, text=True, timeout=300,
                          check=True, env=environ)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["modules"] > 50 and found["changed"] == []
