"""The local 3-node cluster itself: one node per port, each with its own folders and
transport port, all in one cluster, each with the small default heap; status sees them all,
and the CLI reports them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qidf_ctl.engine import process
from qidf_ctl.engine.config import DEFAULT_CLUSTER_HEAP, TRANSPORT_OFFSET

from .conftest import wait_cluster_green

pytestmark = pytest.mark.integration


def _bytes(heap: str) -> int:
    return int(heap[:-1]) * (2**30 if heap.endswith("g") else 2**20)


def test_three_nodes_with_their_own_ports_folders_and_heap(cluster3, nodes_cfg):
    nodes = cluster3.request("GET", "/_nodes/settings,transport,jvm,http")["nodes"]
    by_name = {n["name"]: n for n in nodes.values()}
    assert sorted(by_name) == [f"qidf-{p}" for p in nodes_cfg.ports]
    for port in nodes_cfg.ports:
        node = by_name[f"qidf-{port}"]
        assert node["http"]["publish_address"].endswith(f":{port}")
        assert node["transport"]["publish_address"].endswith(f":{port + TRANSPORT_OFFSET}")
        assert node["settings"]["path"]["data"] in (
            [str(nodes_cfg.for_port(port).node_dir / "data")],
            str(nodes_cfg.for_port(port).node_dir / "data"))
        assert node["jvm"]["mem"]["heap_max_in_bytes"] == _bytes(DEFAULT_CLUSTER_HEAP)
        assert "cluster_manager" in node["roles"] and "data" in node["roles"]
    health = wait_cluster_green(cluster3)
    assert health["number_of_nodes"] == 3 and health["status"] == "green"


def test_status_and_cli_cover_every_node(cluster3, nodes_cfg):
    wait_cluster_green(cluster3)
    info = process.status(nodes_cfg.for_port(nodes_cfg.ports[-1]))
    assert info["running"] and info["running_nodes"] == 3 and info["health"] == "green"
    assert [n["url"] for n in info["nodes"]] == [
        f"http://127.0.0.1:{p}" for p in nodes_cfg.ports]
    pids = {n["pid"] for n in info["nodes"]}
    assert len(pids) == 3 and None not in pids
    out = subprocess.run([sys.executable, "-m", "qidf_ctl", "engine", "status", "--port",
                          str(nodes_cfg.ports[1]), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["running_nodes"] == 3
    again = process.start(nodes_cfg)
    assert again["already_running"] is True
