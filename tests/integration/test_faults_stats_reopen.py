"""The fault matrix of the two changes issue 26 added (scripts/test_faults.sh; skipped
otherwise), each on a node of its own with the plugin:

- ``--strategy reopen`` on Elasticsearch 8.19.21 (port QIDF_FAULT_PORT + 1): qidf SIGKILLed
  right after every step and journal write of apply and revert, SIGTERMed after the reopen
  call and after the wait for primaries; SIGKILLed at random times (QIDF_FAULT_RANDOM per
  operation); the node SIGKILLed while qidf is paused after each step of apply and the two
  around revert's outage (qidf then continuing against the dead node or killed too), and at a
  random instant while the reopen call may be running, then restarted;
- the default search pipeline's step of ``--stats index`` on a 3-shard OpenSearch 2.19.6
  index (port QIDF_FAULT_PORT + 3, so that the matrix's own node keeps no plugin): qidf
  SIGKILLed around that step for apply and revert, both other strategies, and the node
  killed there. (Every single request of it, on the fake engine:
  tests/unit/test_install_stats_crash.py.)

After each fault the next qidf command runs and the index must be open and consistent
(``tests/consistency.py``: similarity and default pipeline at the same end). Counts go to
``faults-stats-reopen.json`` beside ``$QIDF_FAULT_REPORT``.
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
from qidf_ctl.evaluation import indexing
from qidf_ctl.install import pipeline, reopen_swap
from qidf_ctl.similarity import Mode, QlogParams
from tests import faultrun
from tests.consistency import assert_consistent, snapshot

pytestmark = [pytest.mark.integration, pytest.mark.skipif(
    not os.environ.get("QIDF_FAULT_MATRIX"), reason="the full fault matrix runs in "
    "scripts/test_faults.sh (QIDF_FAULT_MATRIX=1)")]

PORT = int(os.environ.get("QIDF_FAULT_PORT", int(os.environ.get("QIDF_TEST_PORT", "9250")) + 4))
RANDOM_KILLS = int(os.environ.get("QIDF_FAULT_RANDOM", "30"))
NAME = "qidf-fault-26"
Q_APPLY = 0.6
ROWS: list[dict[str, Any]] = []


def _connect(url: str) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(url=url))


def _node(cfg: EngineConfig, env_zip: str):
    zip_path = os.environ.get(env_zip)
    if not zip_path:
        pytest.skip(f"{env_zip} not set (scripts/test_faults.sh builds the plugin)")
    info = plugin.install_local(cfg, Path(zip_path))
    return info


@pytest.fixture(scope="module")
def es_node():
    cfg = EngineConfig.from_env(distribution="elasticsearch", port=PORT + 1)
    info = _node(cfg, "QIDF_ES_PLUGIN_ZIP")
    try:
        yield cfg, info["url"]
    finally:
        local_engine.stop(cfg)
        _write_report()


@pytest.fixture(scope="module")
def os_node():
    cfg = EngineConfig.from_env(port=PORT + 3)
    info = _node(cfg, "QIDF_PLUGIN_ZIP")
    try:
        yield cfg, info["url"]
    finally:
        local_engine.stop(cfg)
        _write_report()


def _fresh(cluster: Cluster, go_task, shards: int) -> None:
    """Start from nothing on the node (Elasticsearch 8 refuses wildcard deletes)."""
    rows = cluster.request("GET", f"/_cat/indices/{NAME}*,qidf-*", None,
                           {"format": "json", "h": "index", "expand_wildcards": "all"})
    for row in rows:
        cluster.request("DELETE", f"/{row['index']}")
    indexing.create_index(cluster, NAME, analyzer="standard", shards=shards)
    assert indexing.bulk_index(cluster, NAME, dict(list(go_task.corpus.items())[:3000])) == 3000


@pytest.fixture(scope="module")
def es_index(es_node, go_task):
    _fresh(_connect(es_node[1]), go_task, 1)
    return NAME


@pytest.fixture(scope="module")
def os_index(os_node, go_task):
    _fresh(_connect(os_node[1]), go_task, 3)
    return NAME


def _record(kind: str, operation: str, strategy: str, point: str, outcome: str,
            code: int, seconds: float) -> None:
    ROWS.append({"kind": kind, "operation": operation, "strategy": strategy, "point": point,
                 "outcome": outcome, "exit": code, "seconds": round(seconds, 2)})


def _prepare(cluster: Cluster, operation: str, strategy: str, stats: str | None
             ) -> tuple[Any, dict, dict]:
    """The starting state of ``operation``: (snapshot, old similarity, new similarity)."""
    shown = install.show(cluster, NAME)
    if operation == "apply" and shown["kind"] != "builtin":
        install.revert(cluster, NAME, strategy=strategy)
    if operation == "revert" and shown["kind"] != "qlog":
        install.apply(cluster, NAME, QlogParams(0.3), strategy=strategy, mode=Mode.PLUGIN,
                      stats=stats)
    before = snapshot(cluster, NAME)
    if operation == "apply":
        new = faultrun.new_similarity(cluster, Q_APPLY)
    else:
        new = dict((install.show(cluster, NAME)["record"] or {}).get("previous", {}))
    return before, before.similarity, new


def _argv(url: str, operation: str, strategy: str, stats: str | None) -> list[str]:
    return faultrun.command(url, operation, NAME, strategy, Q_APPLY, mode="plugin",
                            stats=stats)


def _check(cluster: Cluster, before: Any, old: dict, new: dict, operation: str,
           strategy: str, stats: str | None, kind: str, point: str, code: int,
           started: float) -> None:
    want = (f"qidf-stats-{NAME}" if operation == "apply" else None) if stats else None
    try:
        end = assert_consistent(cluster, NAME, before, old, new, want)
    except AssertionError:
        _record(kind, operation, strategy, point, "INCONSISTENT", code,
                time.monotonic() - started)
        raise
    _record(kind, operation, strategy, point, end, code, time.monotonic() - started)


# --- --strategy reopen on Elasticsearch -----------------------------------------------------

REOPEN_POINTS = ["leased", "scratch", "journaled", "reopened", "searchable",
                 "searchable.logged", "recorded", "recorded.logged"]
assert set(reopen_swap.STEPS) <= set(REOPEN_POINTS)
REOPEN_SIGNALS = [(op, p, "SIGKILL") for op in ("apply", "revert") for p in REOPEN_POINTS
                  if op == "apply" or p != "scratch"] + \
                 [("apply", "reopened", "SIGTERM"), ("revert", "searchable", "SIGTERM")]


@pytest.mark.parametrize(("operation", "point", "sig"), REOPEN_SIGNALS)
def test_reopen_signal_after_step(es_node, es_index, operation, point, sig):
    _, url = es_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, "reopen", None)
    started = time.monotonic()
    done = faultrun.run(_argv(url, operation, "reopen", None), f"{point}:{sig}")
    assert done.returncode == (-9 if sig == "SIGKILL" else 130), done.stderr
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "reopen", None, f"signal:{sig}", point,
           done.returncode, started)


@pytest.mark.parametrize(("operation", "i"), [(op, i) for op in ("apply", "revert")
                                              for i in range(RANDOM_KILLS)])
def test_reopen_sigkill_at_a_random_time(es_node, es_index, operation, i):
    _, url = es_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, "reopen", None)
    delay = random.Random(f"reopen{operation}{i}").uniform(0.3, 2.5)
    started = time.monotonic()
    proc = subprocess.Popen(_argv(url, operation, "reopen", None), env=faultrun.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=faultrun.ROOT)
    time.sleep(delay)
    proc.kill()
    proc.communicate()
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "reopen", None, "random:SIGKILL",
           f"{delay:.2f}s", proc.returncode, started)


# Each node death costs a restart (about a minute on a loaded 2-core runner): every step of
# apply, the two around the outage of revert.
REOPEN_NODE_CASES = [("apply", p) for p in ("journaled", "reopened", "searchable",
                                            "recorded")] + \
    [("revert", p) for p in ("reopened", "searchable")]


@pytest.mark.parametrize(("operation", "point"), REOPEN_NODE_CASES)
def test_reopen_node_killed_and_restarted_at_step(es_node, es_index, operation, point):
    cfg, url = es_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, "reopen", None)
    started = time.monotonic()
    paused = faultrun.start_paused(_argv(url, operation, "reopen", None), point)
    assert paused is not None, f"{point} not reached"
    faultrun.kill_node(cfg)
    continue_qidf = len(ROWS) % 2 == 0
    if continue_qidf:
        paused.cont()
        code, _, err = paused.wait()
        assert code in (1, 6, 7, 130), err
        assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("error:")
    else:
        paused.kill()
        code, _, _ = paused.wait()
    faultrun.restart_node(cfg)
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "reopen", None,
           "node:" + ("qidf-continued" if continue_qidf else "qidf-killed"), point, code,
           started)


@pytest.mark.parametrize("i", range(2))
def test_reopen_node_killed_while_the_call_may_run(es_node, es_index, i):
    """The node dies at a random instant around the reopen call (the index may be closed
    inside the engine); qidf runs on against it and fails; the restarted node and the next
    command must still end the index open and consistent."""
    cfg, url = es_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, "apply", "reopen", None)
    paused = faultrun.start_paused(_argv(url, "apply", "reopen", None), "journaled")
    assert paused is not None
    delay = random.Random(f"node{i}").uniform(0.0, 0.6)
    started = time.monotonic()
    paused.cont()
    time.sleep(delay)
    faultrun.kill_node(cfg)
    code, _, err = paused.wait()
    assert "Traceback" not in err, err
    faultrun.restart_node(cfg)
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, "apply", "reopen", None, "node:during-call",
           f"{delay:.2f}s", code, started)


# --- the default search pipeline's step (--stats index) on OpenSearch ------------------------

STATS_POINTS = {"close": [pipeline.STAGE, "updated", "opened.logged", pipeline.STEP,
                          f"{pipeline.STEP}.logged", "recorded"],
                "clone": [pipeline.STAGE, "cloned", "swapped.logged", pipeline.STEP,
                          f"{pipeline.STEP}.logged", "recorded"]}
STATS_SIGNALS = [("apply", st, p) for st in ("close", "clone") for p in STATS_POINTS[st]] + \
    [("revert", st, p) for st in ("close", "clone") for p in (pipeline.STEP,
                                                              f"{pipeline.STEP}.logged")]


@pytest.mark.parametrize(("operation", "strategy", "point"), STATS_SIGNALS)
def test_stats_sigkill_around_the_pipeline_step(os_node, os_index, operation, strategy,
                                                point):
    _, url = os_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, strategy, "index")
    started = time.monotonic()
    done = faultrun.run(_argv(url, operation, strategy, "index"), f"{point}:SIGKILL")
    assert done.returncode == -9, done.stderr
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, strategy, "index", "signal:SIGKILL", point,
           done.returncode, started)


@pytest.mark.parametrize("operation", ["apply"])
def test_stats_node_killed_at_the_pipeline_step(os_node, os_index, operation):
    cfg, url = os_node
    cluster = _connect(url)
    before, old, new = _prepare(cluster, operation, "close", "index")
    started = time.monotonic()
    paused = faultrun.start_paused(_argv(url, operation, "close", "index"), pipeline.STEP)
    assert paused is not None
    faultrun.kill_node(cfg)
    paused.kill()
    code, _, _ = paused.wait()
    faultrun.restart_node(cfg)
    nxt = faultrun.run(faultrun.qidf_argv(url, "recover", NAME))
    assert nxt.returncode == 0, nxt.stderr
    _check(cluster, before, old, new, operation, "close", "index", "node:qidf-killed",
           pipeline.STEP, code, started)


def _write_report() -> None:
    base = os.environ.get("QIDF_FAULT_REPORT")
    if not base or not ROWS:
        return
    path = Path(base).with_name("faults-stats-reopen.json")
    old = json.loads(path.read_text())["rows"] if path.exists() else []
    strategies = {r["strategy"] for r in ROWS}  # rows of the node just finished replace its own
    rows = [r for r in old if r["strategy"] not in strategies] + ROWS
    ROWS.clear()
    summary = {"faults": len(rows),
               "faults_by_kind": dict(Counter(r["kind"] for r in rows)),
               "faults_by_strategy": dict(Counter(r["strategy"] for r in rows)),
               "ended_old_or_new": dict(Counter(r["outcome"] for r in rows)),
               "inconsistent": sum(r["outcome"] == "INCONSISTENT" for r in rows),
               "rows": rows}
    path.write_text(json.dumps(summary, indent=1) + "\n")
