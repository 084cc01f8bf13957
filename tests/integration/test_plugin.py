"""The native plugin on the real engine: q = 1 equals the built-in default, and the plugin
and the Painless similarity agree at every q (same rankings, same scores)."""

from __future__ import annotations

import math
import os

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.similarity import Mode, QlogParams

from .test_parity import _same_ranking

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def plugin_ready(cluster):
    if not install.presence(cluster).everywhere:
        if os.environ.get("QIDF_PLUGIN_ZIP"):
            pytest.fail("QIDF_PLUGIN_ZIP was set but the plugin is not on the node")
        pytest.skip("the plugin is not installed (scripts/test.sh builds and installs it)")


@pytest.fixture(scope="module")
def terms(cluster, parity_index, go_task):
    return queries.analyze_all(cluster, parity_index, indexing.FIELD, go_task.queries)


def _run(cluster, index, terms, params=None, mode=Mode.SCRIPT):
    if params is None:
        install.revert(cluster, index)
    else:
        install.apply(cluster, index, params, mode=mode)
    return runs.search_run(cluster, index, indexing.FIELD, terms, k=10)


def _compare(a, b):
    worst, exact = 0.0, 0
    for qid, hits in a.items():
        assert hits and _same_ranking(hits, b[qid]), f"ranking differs for {qid}"
        exact += [d for d, _ in hits] == [d for d, _ in b[qid]]
        for (_, s0), (_, s1) in zip(hits, b[qid], strict=True):
            worst = max(worst, abs(s0 - s1) / s0)
    return worst, exact


def test_plugin_q1_equals_builtin(cluster, parity_index, terms, plugin_ready):
    try:
        builtin = _run(cluster, parity_index, terms)
        native = _run(cluster, parity_index, terms, QlogParams(1.0), Mode.PLUGIN)
        assert install.show(cluster, parity_index)["mode"] == "plugin"
    finally:
        install.revert(cluster, parity_index)
    worst, exact = _compare(builtin, native)
    print(f"\nplugin q=1 vs built-in: {len(builtin)} queries, identical order on {exact}, "
          f"max relative difference {worst:.2e}")
    assert worst <= 1e-6


@pytest.mark.parametrize("q", [0.05, 0.3, 0.7, 1.0])
def test_plugin_and_painless_agree(cluster, parity_index, terms, plugin_ready, q):
    try:
        native = _run(cluster, parity_index, terms, QlogParams(q), Mode.PLUGIN)
        painless = _run(cluster, parity_index, terms, QlogParams(q), Mode.SCRIPT)
    finally:
        install.revert(cluster, parity_index)
    worst, exact = _compare(native, painless)
    print(f"\nplugin vs Painless q={q}: identical order on {exact}/{len(native)}, "
          f"max relative difference {worst:.2e}")
    assert worst < 1e-4 and not math.isnan(worst)


@pytest.mark.parametrize("bad, name", [({"q": 3}, "q"), ({"q": "NaN"}, "q"),
                                       ({"form": "bm25"}, "form"), ({"k1": -1}, "k1"),
                                       ({"b": 1.5}, "b")])
def test_engine_refuses_invalid_plugin_settings(cluster, plugin_ready, bad, name):
    """Checked by the engine itself (bypassing qidf's own validation): creation fails with a
    message naming the setting, and a refused update leaves an index that opens."""
    from qidf_ctl.errors import ClusterError

    index = "qidf-it-plugin-bad"
    sim = {"type": "qlog_bm25", **bad}
    with pytest.raises(ClusterError, match=name):
        indexing.create_index(cluster, index, similarity={"default": sim})
    indexing.create_index(cluster, index)
    cluster.request("POST", f"/{index}/_close")
    try:
        with pytest.raises(ClusterError, match=name):
            cluster.request("PUT", f"/{index}/_settings", {
                f"index.similarity.default.{k}": v for k, v in sim.items()})
    finally:
        cluster.request("POST", f"/{index}/_open")
    health = cluster.request("GET", f"/_cluster/health/{index}?wait_for_status=green&timeout=30s")
    assert health["status"] == "green"
    cluster.request("DELETE", f"/{index}")
