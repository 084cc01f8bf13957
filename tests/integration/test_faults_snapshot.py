"""The fault matrix of statistics snapshots (issue 34; scripts/test_faults.sh, skipped
otherwise), on a 3-shard OpenSearch 2.19.6 index with the plugin, on a node of its own (port
QIDF_FAULT_PORT + 5):

- ``apply --stats snapshot`` and the ``revert`` that drops it, both strategies: qidf SIGKILLed
  right after every step and journal write (the take before the close or clone, the drop
  after it), and SIGTERMed after the take;
- ``qidf snapshot refresh``: SIGKILLed after the lease and after the take, SIGTERMed after it;
- qidf SIGKILLed at a random instant while the engine may be taking the snapshot (the take
  runs on in the engine: it must not leave a half snapshot, nor resurrect one a recovery
  deleted), QIDF_FAULT_SNAPSHOT_RANDOM times per operation;
- the node SIGKILLed while it may be taking the snapshot, then restarted
  (QIDF_FAULT_SNAPSHOT_NODE_DEATHS times); and a plain restart, after which the node must
  hold the snapshot again and serve the same scores.

After each fault the next qidf command runs (``recover``; for a refresh, ``refresh`` again)
and the index must be open and consistent (``tests/consistency.py``: similarity, record and
snapshot at one end, the snapshot the similarity names stored and held by every data node,
no snapshot that no index names, no half-taken one, no stray chunk). Counts go to
``faults-snapshot.json`` beside ``$QIDF_FAULT_REPORT``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import plugin
from qidf_ctl.engine import process as local_engine
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.install import snapshot as snapshot_step
from qidf_ctl.install.refresh import STEP as REFRESHED
from qidf_ctl.similarity import Mode, QlogParams, flatten, similarity_value
from qidf_ctl.stats import snapshot as api
from tests import faultrun
from tests.consistency import KEEP, assert_consistent, snapshot

pytestmark = [pytest.mark.integration, pytest.mark.skipif(
    not os.environ.get("QIDF_FAULT_MATRIX"), reason="the full fault matrix runs in "
    "scripts/test_faults.sh (QIDF_FAULT_MATRIX=1)")]

PORT = int(os.environ.get("QIDF_FAULT_PORT", int(os.environ.get("QIDF_TEST_PORT", "9250")) + 4))
RANDOM_KILLS = int(os.environ.get("QIDF_FAULT_SNAPSHOT_RANDOM", "8"))
NODE_DEATHS = int(os.environ.get("QIDF_FAULT_SNAPSHOT_NODE_DEATHS", "2"))
NAME = "qidf-fault-34"
Q_APPLY = 0.6
ROWS: list[dict[str, Any]] = []


def _connect(url: str) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(url=url))


@pytest.fixture(scope="module")
def node():
    zip_path = os.environ.get("QIDF_PLUGIN_ZIP")
    if not zip_path:
        pytest.skip("QIDF_PLUGIN_ZIP not set (scripts/test_faults.sh builds the plugin)")
    cfg = EngineConfig.from_env(port=PORT + 5)
    info = plugin.install_local(cfg, Path(zip_path))
    try:
        yield cfg, info["url"]
    finally:
        local_engine.stop(cfg)
        _write_report()


@pytest.fixture(scope="module")
def index(node, go_task):
    cluster = _connect(node[1])
    rows = cluster.request("GET", f"/_cat/indices/{NAME}*,qidf-*", None,
                           {"format": "json", "h": "index", "expand_wildcards": "all"})
    for row in rows:
        cluster.request("DELETE", f"/{row['index']}")
    indexing.create_index(cluster, NAME, analyzer="standard", shards=3)
    assert indexing.bulk_index(cluster, NAME, dict(list(go_task.corpus.items())[:3000])) == 3000
    return NAME


def _new_similarity(cluster: Cluster) -> dict[str, Any]:
    sim = flatten(similarity_value(QlogParams(Q_APPLY), Mode.PLUGIN,
                                   cluster.engine.default_is_legacy_bm25))
    return snapshot_step.with_key(sim, NAME)


def _prepare(cluster: Cluster, operation: str, strategy: str) -> tuple[Any, dict, dict]:
    """The starting state: built-in for apply, q-log with a snapshot for revert and refresh."""
    shown = install.show(cluster, NAME)
    if operation == "apply" and shown["kind"] != "builtin":
        install.revert(cluster, NAME, strategy=strategy)
    if operation != "apply" and shown["search_statistics"]["scope"] != "snapshot":
        install.apply(cluster, NAME, QlogParams(0.3), strategy=strategy, mode=Mode.PLUGIN,
                      stats="snapshot")
    before = snapshot(cluster, NAME)
    if operation == "apply":
        new = _new_similarity(cluster)
    elif operation == "revert":
        new = dict((install.show(cluster, NAME)["record"] or {}).get("previous", {}))
    else:
        new = before.similarity
    return before, before.similarity, new


def _argv(url: str, operation: str, strategy: str) -> list[str]:
    if operation == "refresh":
        return faultrun.qidf_argv(url, "snapshot", "refresh", NAME)
    return faultrun.command(url, operation, NAME, strategy, Q_APPLY, mode="plugin",
                            stats="snapshot")


def _next(url: str, operation: str) -> subprocess.CompletedProcess[str]:
    """The next qidf command after a fault: recover (a refresh is simply run again)."""
    if operation == "refresh":
        return faultrun.run(faultrun.qidf_argv(url, "snapshot", "refresh", NAME))
    return faultrun.run(faultrun.qidf_argv(url, "recover", NAME))


def _check(cluster: Cluster, before: Any, old: dict, new: dict, operation: str,
           strategy: str, kind: str, point: str, code: int, started: float) -> None:
    try:
        end = assert_consistent(cluster, NAME, before, old, new, KEEP)
    except AssertionError:
        ROWS.append({"kind": kind, "operation": operation, "strategy": strategy,
                     "point": point, "outcome": "INCONSISTENT", "exit": code,
                     "seconds": round(time.monotonic() - started, 2)})
        raise
    ROWS.append({"kind": kind, "operation": operation, "strategy": strategy, "point": point,
                 "outcome": end, "exit": code, "seconds": round(time.monotonic() - started, 2)})


APPLY_POINTS = {
    "close": ["leased", "scratch", "journaled", snapshot_step.TAKEN, f"{snapshot_step.TAKEN}"
              ".logged", "closed", "updated", "opened", "opened.logged", "recorded",
              "recorded.logged"],
    "clone": ["journaled", snapshot_step.TAKEN, f"{snapshot_step.TAKEN}.logged", "blocked",
              "cloned", "configured", "searchable", "swapped", "swapped.logged", "recorded",
              "retired", "retired.logged"],
}
REVERT_POINTS = {
    "close": ["journaled", "closed", "updated", "opened.logged", "recorded.logged",
              snapshot_step.DROPPED, f"{snapshot_step.DROPPED}.logged"],
    "clone": ["journaled", "blocked", "cloned", "swapped.logged", "retired.logged",
              snapshot_step.DROPPED, f"{snapshot_step.DROPPED}.logged"],
}
SIGNALS = [("apply", st, p, "SIGKILL") for st, ps in APPLY_POINTS.items() for p in ps] + \
    [("revert", st, p, "SIGKILL") for st, ps in REVERT_POINTS.items() for p in ps] + \
    [("apply", "close", snapshot_step.TAKEN, "SIGTERM"),
     ("refresh", "close", "leased", "SIGKILL"),
     ("refresh", "close", REFRESHED, "SIGKILL"),
     ("refresh", "close", REFRESHED, "SIGTERM")]


@pytest.mark.parametrize(("operation", "strategy", "point", "sig"), SIGNALS)
def test_signal_after_step(node, index, operation, strategy, point, sig):
    _, url = node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, strategy)
    started = time.monotonic()
    done = faultrun.run(_argv(url, operation, strategy), f"{point}:{sig}")
    if sig == "SIGKILL":
        assert done.returncode == -9, done.stderr
    else:
        assert done.returncode in (0, 130), done.stderr
    nxt = _next(url, operation)
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, strategy, f"signal:{sig}", point,
           done.returncode, started)


@pytest.mark.parametrize(("operation", "i"), [(op, i) for op in ("apply", "refresh")
                                              for i in range(RANDOM_KILLS)])
def test_sigkill_while_the_engine_may_be_taking_it(node, index, operation, i):
    """qidf dies at a random instant after the journal (apply) or the lease (refresh), while
    the engine may be taking the snapshot; the take runs on inside the engine."""
    _, url = node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, "close")
    point = "journaled" if operation == "apply" else "leased"
    paused = faultrun.start_paused(_argv(url, operation, "close"), point)
    assert paused is not None
    delay = random.Random(f"take{operation}{i}").uniform(0.0, 1.5)
    started = time.monotonic()
    paused.cont()
    time.sleep(delay)
    paused.kill()
    code, _, _ = paused.wait()
    nxt = _next(url, operation)
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "close", "random:SIGKILL", f"{delay:.2f}s",
           code, started)


@pytest.mark.parametrize("i", range(NODE_DEATHS))
def test_node_killed_while_it_may_be_taking_it(node, index, i):
    cfg, url = node
    cluster = _connect(url)
    operation = "apply" if i % 2 == 0 else "refresh"
    before, old, new = _prepare(cluster, operation, "close")
    point = "journaled" if operation == "apply" else "leased"
    paused = faultrun.start_paused(_argv(url, operation, "close"), point)
    assert paused is not None
    delay = random.Random(f"node-take{i}").uniform(0.0, 1.0)
    started = time.monotonic()
    paused.cont()
    time.sleep(delay)
    faultrun.kill_node(cfg)
    code, _, err = paused.wait()
    assert "Traceback" not in err, err
    faultrun.restart_node(cfg)
    nxt = _next(url, operation)
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "close", "node:during-take", f"{delay:.2f}s",
           code, started)


def test_a_restarted_node_serves_the_same_scores(node, index, go_task):
    cfg, url = node
    cluster = _connect(url)
    install.apply(cluster, NAME, QlogParams(0.3), mode=Mode.PLUGIN, stats="snapshot")
    terms = queries.analyze_all(cluster, NAME, indexing.FIELD,
                                dict(list(go_task.queries.items())[:100]))
    want = runs.search_run(cluster, NAME, indexing.FIELD, terms, k=10, search_type=None)
    faultrun.kill_node(cfg)
    faultrun.restart_node(cfg)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # loaded in the background once the store is up
        held, total, _ = api.nodes_holding(api.info(cluster, NAME) or {})
        if held == total >= 1:
            break
        time.sleep(1)
    got = runs.search_run(cluster, NAME, indexing.FIELD, terms, k=10, search_type=None)
    assert got == want


def _write_report() -> None:
    base = os.environ.get("QIDF_FAULT_REPORT")
    if not base or not ROWS:
        return
    path = Path(base).with_name("faults-snapshot.json")
    summary = {"faults": len(ROWS),
               "faults_by_kind": dict(Counter(r["kind"] for r in ROWS)),
               "faults_by_operation": dict(Counter(r["operation"] for r in ROWS)),
               "ended_old_or_new": dict(Counter(r["outcome"] for r in ROWS)),
               "inconsistent": sum(r["outcome"] == "INCONSISTENT" for r in ROWS),
               "rows": list(ROWS)}
    path.write_text(json.dumps(summary, indent=1) + "\n")
    ROWS.clear()
