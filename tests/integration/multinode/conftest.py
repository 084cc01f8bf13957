"""A 3-node local cluster for the multi-node tests, started once per session.

These tests run in ``scripts/test_matrix.sh`` (which sets ``QIDF_TEST_MULTINODE=1``), not in
the default suite: they skip without it. The nodes listen on ``QIDF_TEST_NODES_PORT`` and the
two ports after it (default 9260-9262; transport ports +100), with the default cluster heap.
``QIDF_PLUGIN_ZIP`` is the plugin built for the engine (scripts/test_matrix.sh builds it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import process
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import indexing

NODES_PORT = int(os.environ.get("QIDF_TEST_NODES_PORT", "9260"))
NODES = 3
LOAD_INDEX = "qidf-mn-load"  # 6 shards, 1 replica: every node holds copies
HEALTH_WAIT_S = 180  # how long a health wait lets the engine wait for green


@pytest.fixture(scope="session")
def nodes_cfg() -> EngineConfig:
    return EngineConfig.from_env(port=NODES_PORT, nodes=NODES)


@pytest.fixture(scope="session")
def cluster3(nodes_cfg):
    """The running 3-node cluster (started here, stopped at the end of the session)."""
    if os.environ.get("QIDF_TEST_MULTINODE") != "1":
        pytest.skip("multi-node tests run in scripts/test_matrix.sh (QIDF_TEST_MULTINODE=1)")
    if process.running_pid(nodes_cfg) is None:
        # A cluster kept from an earlier run may hold indices that cannot allocate any more
        # (a similarity type whose plugin a test removed): the tests start from empty nodes.
        for port in nodes_cfg.ports:
            shutil.rmtree(nodes_cfg.for_port(port).node_dir / "data", ignore_errors=True)
    info = process.start(nodes_cfg)
    try:
        # The health waits below ask the engine to wait up to HEALTH_WAIT_S; the client must
        # wait longer than that, or it gives up first (its default is 60 s).
        cluster = Cluster.connect(ConnectionSettings.from_options(
            url=info["url"], timeout=HEALTH_WAIT_S + 30))
        # The three nodes share the runner's one disk with everything else on it: above 85%
        # used, the disk-watermark decider leaves every replica unassigned and no index of
        # these tests turns green. Disk pressure is not what they test.
        cluster.request("PUT", "/_cluster/settings", {"persistent": {
            "cluster.routing.allocation.disk.threshold_enabled": False}})
        yield cluster
    finally:
        if not info["already_running"]:
            process.stop(nodes_cfg)


@pytest.fixture(scope="session")
def urls(nodes_cfg) -> list[str]:
    return [nodes_cfg.for_port(p).url for p in nodes_cfg.ports]


@pytest.fixture(scope="session")
def plugin_zip() -> Path:
    path = os.environ.get("QIDF_PLUGIN_ZIP")
    if not path:
        pytest.skip("QIDF_PLUGIN_ZIP not set (scripts/test_matrix.sh builds the plugin)")
    return Path(path)


@pytest.fixture(scope="session")
def load_index(cluster3, go_task) -> str:
    """The Go corpus in 6 shards with 1 replica, green: a copy of every shard on two nodes."""
    # A cluster kept from an earlier run may hold the name, or clones serving it as an alias.
    # Named one by one: Elasticsearch refuses a wildcard DELETE (destructive_requires_name).
    found = cluster3.request("GET", f"/_cat/indices/{LOAD_INDEX}*",
                             params={"format": "json", "h": "index", "expand_wildcards": "all"})
    for row in found:
        cluster3.request("DELETE", f"/{row['index']}")
    indexing.create_index(cluster3, LOAD_INDEX, shards=6, replicas=1)
    assert indexing.bulk_index(cluster3, LOAD_INDEX, go_task.corpus) == len(go_task.corpus)
    wait_green(cluster3, LOAD_INDEX)
    return LOAD_INDEX


def wait_green(cluster: Cluster, index: str, timeout_s: int = HEALTH_WAIT_S) -> None:
    # The query string goes in the path: opensearch-py takes a "timeout" param as its own.
    # No relocating shards either: a node that rejoins draws shards back (rebalancing), and a
    # copy listed while it moves is gone by the time a test reaches it.
    health = cluster.request("GET", f"/_cluster/health/{index}?wait_for_status=green"
                             f"&wait_for_no_initializing_shards=true"
                             f"&wait_for_no_relocating_shards=true&timeout={timeout_s}s")
    assert health["status"] == "green" and not health["timed_out"], health


def wait_cluster_green(cluster: Cluster, timeout_s: int = HEALTH_WAIT_S) -> dict:
    """Every index green: a test before this one may have restarted a node, whose replicas
    (of any index, system ones included) are still recovering."""
    health = cluster.request("GET", "/_cluster/health?wait_for_status=green"
                             f"&wait_for_no_initializing_shards=true&timeout={timeout_s}s")
    assert health["status"] == "green" and not health["timed_out"], health
    return health  # type: ignore[no-any-return]


def query_texts(go_task, n: int = 40) -> list[str]:
    """Short real queries for the search load: the first words of docstrings."""
    texts = [" ".join(go_task.corpus[d].split()[:6]) for d in sorted(go_task.corpus)[::97]]
    return texts[:n]
