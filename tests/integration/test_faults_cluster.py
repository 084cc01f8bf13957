"""Node death on a 3-node cluster during apply and revert, both strategies: part of the fault
matrix (scripts/test_faults.sh; skipped otherwise), a seeded random subset of
``QIDF_FAULT_CLUSTER_DEATHS`` cases (default 12; CI runs 6).

Each case: qidf paused (``QIDF_FAULT=<step>:STOP``) right after a step of apply or revert on
an index of 3 shards and 1 replica; one node SIGKILLed (its JVM, by the recorded pid): the
elected cluster manager, another data node, or the node qidf talks to; qidf then continues
(against what is left of the cluster) or is killed too; the node is restarted, the index
waited for until green, and the next command (``qidf recover``) must succeed and leave the
index open and consistent (``tests/consistency.py``). Counts are merged into
``$QIDF_FAULT_REPORT`` under ``cluster_node_deaths``.

The nodes listen on ``QIDF_FAULT_NODES_PORT`` and the two ports after it (default: the fault
node's port + 11, clear of test_faults_stats_reopen.py's nodes; transport ports +100), 512 MB
heap each.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import process
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.evaluation import indexing
from tests import faultrun
from tests.consistency import assert_consistent

pytestmark = [pytest.mark.integration, pytest.mark.skipif(
    not os.environ.get("QIDF_FAULT_MATRIX"), reason="the fault matrix runs in "
    "scripts/test_faults.sh (QIDF_FAULT_MATRIX=1)")]

FAULT_PORT = int(os.environ.get("QIDF_FAULT_PORT",
                                int(os.environ.get("QIDF_TEST_PORT", "9250")) + 4))
NODES_PORT = int(os.environ.get("QIDF_FAULT_NODES_PORT", FAULT_PORT + 11))
DEATHS = int(os.environ.get("QIDF_FAULT_CLUSTER_DEATHS", "12"))
SEED = int(os.environ.get("QIDF_FAULT_SEED", str(int(time.time()) % 100_000)))
NAME = "qidf-fault-mn"
DOCS = 3000
Q_APPLY = 0.6
GREEN_WAIT_S = 240
START_S = 600  # a restarted node joins in 30-60 s; under load (2 cores, 3 JVMs) far longer
POINTS = {"close": ["journaled", "closed", "updated", "opened", "recorded"],
          "clone": ["journaled", "blocked", "cloned", "searchable", "swapped", "recorded",
                    "retired"]}
ALL_CASES = [(op, st, point, victim, then)
             for op in ("apply", "revert") for st in ("close", "clone")
             for point in POINTS[st] for victim in ("manager", "data", "qidf's node")
             for then in ("qidf-continued", "qidf-killed")]
CASES = sorted(random.Random(SEED).sample(ALL_CASES, min(DEATHS, len(ALL_CASES))))
ROWS: list[dict[str, Any]] = []


@pytest.fixture(scope="module")
def nodes():
    cfg = EngineConfig.from_env(port=NODES_PORT, nodes=3)
    info = process.start(cfg, timeout_s=600)
    try:
        cluster = _connect(info["url"], timeout=GREEN_WAIT_S + 30)
        # the nodes share the machine's disk: past the watermark no replica is assigned
        cluster.request("PUT", "/_cluster/settings", {"persistent": {
            "cluster.routing.allocation.disk.threshold_enabled": False}})
        yield cfg
    finally:
        if not info["already_running"]:
            process.stop(cfg)
        _write_report()


def _connect(url: str, timeout: float = 60) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(url=url, timeout=timeout))


def _urls(cfg: EngineConfig) -> dict[int, str]:
    return {p: cfg.for_port(p).url for p in cfg.ports}


def _wait_green(cluster: Cluster) -> None:
    health = cluster.request("GET", f"/_cluster/health?wait_for_status=green"
                             f"&wait_for_no_initializing_shards=true&timeout={GREEN_WAIT_S}s")
    assert health["status"] == "green" and not health["timed_out"], health


@pytest.fixture(scope="module")
def index(nodes, go_task):
    cluster = _connect(next(iter(_urls(nodes).values())), timeout=GREEN_WAIT_S + 30)
    # the cluster is the matrix's own: an aborted run's leftovers go first
    cluster.request("DELETE", f"/{NAME}*,qidf-state,qidf-validate-*", None,
                    {"expand_wildcards": "all", "ignore_unavailable": "true"})
    indexing.create_index(cluster, NAME, analyzer="standard", shards=3, replicas=1)
    docs = dict(list(go_task.corpus.items())[:DOCS])
    assert indexing.bulk_index(cluster, NAME, docs) == DOCS
    _wait_green(cluster)
    return NAME


def _manager_port(cluster: Cluster) -> int:
    name = cluster.request("GET", "/_cat/cluster_manager", params={"format": "json"})[0]["node"]
    return int(name.rsplit("-", 1)[1])


def _roles(cfg: EngineConfig, cluster: Cluster, victim: str, rng: random.Random
           ) -> tuple[int, int]:
    """(the port killed, the port qidf talks to)."""
    ports = list(cfg.ports)
    manager = _manager_port(cluster)
    if victim == "manager":
        return manager, rng.choice([p for p in ports if p != manager])
    if victim == "data":
        dead = rng.choice([p for p in ports if p != manager])
        return dead, rng.choice([p for p in ports if p != dead])
    dead = rng.choice(ports)
    return dead, dead  # the node qidf talks to


def _wait_port_free(port: int, timeout_s: float = 60) -> None:
    """Until nothing listens on ``port`` (the killed JVM's listener is gone)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
                return
            except OSError:
                pass
        time.sleep(0.5)
    listeners = subprocess.run(["ss", "-ltnp", f"sport = :{port}"], capture_output=True,
                               text=True, stdin=subprocess.DEVNULL).stdout
    raise AssertionError(f"port {port} still in use {timeout_s:g}s after the kill: {listeners}")


def _prepare(cluster: Cluster, operation: str, strategy: str) -> tuple[Any, dict, dict]:
    found = faultrun.prepare(cluster, NAME, operation, strategy, Q_APPLY)
    _wait_green(cluster)
    return found


@pytest.mark.parametrize(("operation", "strategy", "point", "victim", "then"), CASES)
def test_a_cluster_node_killed_at_a_step(nodes, index, operation, strategy, point, victim,
                                         then):
    urls = _urls(nodes)
    rng = random.Random(f"{SEED}{operation}{strategy}{point}{victim}{then}")
    survivor = _connect(urls[nodes.ports[0]], timeout=GREEN_WAIT_S + 30)
    before, old, new = _prepare(survivor, operation, strategy)
    dead, talks_to = _roles(nodes, survivor, victim, rng)
    started = time.monotonic()
    paused = faultrun.start_paused(faultrun.command(urls[talks_to], operation, NAME, strategy,
                                                    Q_APPLY), point)
    if paused is None:  # the step does nothing on this path: no fault
        pytest.skip(f"{point} not reached")
    spec = NodeSpec(process.recorded(nodes).for_port(dead), nodes.ports)
    pid = process.running_pid(spec.cfg)
    assert pid is not None, f"node {dead} is not running (record {process.read_record(spec.cfg)})"
    assert process.stop_node(spec.cfg, kill=True)
    if then == "qidf-continued":
        paused.cont()
        code, _, err = paused.wait()
        assert code in (0, 1, 6, 7, 130), err
        assert "Traceback" not in err and "unexpected" not in err, err
    else:
        paused.kill()
        code, _, _ = paused.wait()
    _wait_port_free(dead)
    process.start_node(spec, timeout_s=START_S)
    alive = _connect(urls[dead], timeout=GREEN_WAIT_S + 30)
    _wait_green(alive)
    nxt = faultrun.run(faultrun.qidf_argv(urls[rng.choice(nodes.ports)], "recover", NAME))
    row = {"kind": "cluster:node", "operation": operation, "strategy": strategy,
           "point": point, "victim": victim, "then": then, "exit": code}
    try:
        assert nxt.returncode == 0, nxt.stderr
        _wait_green(alive)
        row["outcome"] = assert_consistent(alive, NAME, before, old, new)
    except AssertionError:
        row["outcome"] = "INCONSISTENT"
        raise
    finally:
        row["seconds"] = round(time.monotonic() - started, 1)
        ROWS.append(row)


def _write_report() -> None:
    path = os.environ.get("QIDF_FAULT_REPORT")
    if not path or not ROWS:
        return
    report = json.loads(Path(path).read_text()) if Path(path).exists() else {}
    report["cluster_node_deaths"] = {
        "cases": len(ROWS), "seed": SEED, "of_possible": len(ALL_CASES),
        "ended_old_or_new": dict(Counter(r["outcome"] for r in ROWS)),
        "inconsistent": sum(r["outcome"] == "INCONSISTENT" for r in ROWS),
        "by_victim": dict(Counter(r["victim"] for r in ROWS)),
        "rows": ROWS,
    }
    Path(path).write_text(json.dumps(report, indent=1) + "\n")
