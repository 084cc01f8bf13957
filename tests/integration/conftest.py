"""Fixtures for tests against a real OpenSearch node.

``QIDF_TEST_URL`` points at a running engine; without it the session starts the project's
own local engine (``qidf_ctl.engine``) on port 9250 and stops it afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from qidf_ctl import demo
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import plugin
from qidf_ctl.engine import process as local_engine
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import RetrievalTask, indexing

TEST_PORT = int(os.environ.get("QIDF_TEST_PORT", "9250"))
ES_PORT = int(os.environ.get("QIDF_TEST_ES_PORT", "9230"))
PARITY_INDEX = "qidf-it-parity"


@pytest.fixture(scope="session")
def engine_url():
    url = os.environ.get("QIDF_TEST_URL")
    if url:
        yield url
        return
    cfg = EngineConfig.from_env(port=TEST_PORT)
    plugin_zip = os.environ.get("QIDF_PLUGIN_ZIP")
    if plugin_zip:  # scripts/test.sh builds it; installing restarts the node with it
        info = {**plugin.install_local(cfg, Path(plugin_zip)), "already_running": False}
    else:
        info = local_engine.start(cfg)
    try:
        yield info["url"]
    finally:
        if not info["already_running"]:
            local_engine.stop(cfg)


@pytest.fixture(scope="session")
def cluster(engine_url) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(url=engine_url))


@pytest.fixture(scope="session")
def go_task() -> RetrievalTask:
    """Real Go code: every docstring of the shipped corpus, 300 code queries."""
    return demo.load_task(max_queries=300, seed=7)


@pytest.fixture(scope="session")
def parity_index(cluster, go_task) -> str:
    indexing.create_index(cluster, PARITY_INDEX, analyzer="standard", shards=1)
    count = indexing.bulk_index(cluster, PARITY_INDEX, go_task.corpus)
    assert count == len(go_task.corpus) >= 5000
    return PARITY_INDEX


@pytest.fixture(scope="session")
def es_cluster() -> Iterator[Cluster]:
    """A real Elasticsearch node with the plugin, started once for every test that needs one
    (its Maven Central distribution has no Painless: the plugin path only)."""
    zip_path = os.environ.get("QIDF_ES_PLUGIN_ZIP")
    if not zip_path:
        pytest.skip("QIDF_ES_PLUGIN_ZIP not set (scripts/test.sh builds the Elasticsearch plugin)")
    cfg = EngineConfig.from_env(distribution="elasticsearch", port=ES_PORT)
    info = plugin.install_local(cfg, Path(zip_path))
    try:
        yield Cluster.connect(ConnectionSettings.from_options(url=info["url"]))
    finally:
        local_engine.stop(cfg)
