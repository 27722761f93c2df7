"""The Neo4j server config: memory defaults, the page-cache override from the environment, bad sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import neo4j_server as ns
from graphmem.neo4j_server.neo4j_conf import render_config


def test_default_page_cache_holds_a_million_unit_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ns.ENV_PAGECACHE, raising=False)
    config = ns.Neo4jServerConfig.from_env(tmp_path)
    assert config.pagecache == "4g"
    assert "server.memory.pagecache.size=4g" in render_config(config)


def test_page_cache_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ns.ENV_PAGECACHE, "8g")
    assert ns.Neo4jServerConfig.from_env(tmp_path).pagecache == "8g"
    # An explicit argument wins over the environment.
    assert ns.Neo4jServerConfig.from_env(tmp_path, pagecache="512m").pagecache == "512m"


@pytest.mark.parametrize("field", ["heap_initial", "heap_max", "pagecache"])
@pytest.mark.parametrize("size", ["", "4 g", "lots", "0g", "-1g", "4gb"])
def test_bad_memory_size_is_refused_before_start(tmp_path: Path, field: str, size: str) -> None:
    with pytest.raises(ns.Neo4jServerError, match=field):
        ns.Neo4jServerConfig(home=tmp_path, **{field: size})


@pytest.mark.parametrize("size", ["512m", "4g", "4G", "1048576k", "2000000000"])
def test_good_memory_sizes(tmp_path: Path, size: str) -> None:
    assert ns.Neo4jServerConfig(home=tmp_path, pagecache=size).pagecache == size
