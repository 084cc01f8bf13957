"""The native plugin on the real engine: q = 1 equals the built-in default, the plugin and
the Painless similarity agree at every q (same rankings, same scores), and its search request
processor gives plain searches of a multi-shard index the ranking of explicit dfs, through
qidf's default pipeline and after a pipeline the index already had."""

from __future__ import annotations

import json
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


# --- the search request processor, through real pipelines -------------------------------------

SHARDED = "qidf-it-plugin-sh3"
TEAM = {"description": "the team's pipeline",
        "request_processors": [{"filter_query": {"query": {"match": {"text": "reader"}}}}],
        "response_processors": [{"rename_field": {"field": "text", "target_field": "doc"}}]}


@pytest.fixture(scope="module")
def sharded(cluster, go_task, plugin_ready):
    """The Go corpus in 3 shards (each shard's df differs from the index's)."""
    cluster.request("DELETE", f"/{SHARDED}", None, {"ignore_unavailable": "true"})
    indexing.create_index(cluster, SHARDED, analyzer="standard", shards=3)
    indexing.bulk_index(cluster, SHARDED, go_task.corpus)
    yield SHARDED
    install.revert(cluster, SHARDED)
    cluster.request("DELETE", f"/{SHARDED}")


@pytest.fixture(scope="module")
def common_processors(cluster, plugin_ready):
    """OpenSearch's built-in processors (filter_query, rename_field...), which every
    distribution has and the integ-test zip lacks: added to the session's own node once."""
    from qidf_ctl.engine.config import EngineConfig
    from tests.support import pipeline_module

    from .conftest import TEST_PORT

    if not pipeline_module.has_common_processors(cluster):
        if os.environ.get("QIDF_TEST_URL"):
            pytest.skip("an external node without the search-pipeline-common module")
        pipeline_module.add_module(EngineConfig.from_env(port=TEST_PORT))
    assert pipeline_module.has_common_processors(cluster)


def _hits(cluster, index, body, params=None):
    resp = cluster.request("POST", f"/{index}/_search", body, params)
    return [(h["_id"], h["_score"]) for h in resp["hits"]["hits"]], resp


def _state(cluster, index):
    """The index's settings and every search pipeline, as the engine returns them."""
    settings = cluster.request("GET", f"/{index}/_settings", params={"flat_settings": "true"})
    try:
        pipelines = cluster.request("GET", "/_search/pipeline")
    except Exception:  # none defined: 404
        pipelines = {}
    return json.dumps(settings, sort_keys=True), json.dumps(pipelines, sort_keys=True)


def test_plain_searches_get_index_wide_statistics_from_the_default_pipeline(
        cluster, sharded, terms, go_task):
    before = _state(cluster, sharded)
    result = install.apply(cluster, sharded, QlogParams(0.3), mode=Mode.PLUGIN, stats="index")
    assert result.stats == "index" and result.search_pipeline == f"qidf-stats-{sharded}"
    same = differ = 0
    for qid in sorted(terms)[:200]:
        body = {"size": 10, "_source": False,
                "query": queries.term_query(indexing.FIELD, terms[qid])}
        plain, _ = _hits(cluster, sharded, body)  # what an application sends
        dfs, _ = _hits(cluster, sharded, body, {"search_type": "dfs_query_then_fetch",
                                                "search_pipeline": "_none"})
        qtf, _ = _hits(cluster, sharded, body, {"search_pipeline": "_none"})
        same += plain == dfs
        differ += qtf != dfs
    print(f"\nplain _search through the pipeline: {same}/200 identical to explicit dfs "
          f"(ids and scores); query_then_fetch differs from dfs on {differ}/200")
    assert same == 200 and differ > 50
    # requests that do not score pass as they came, and still work
    count = cluster.request("POST", f"/{sharded}/_count", {"query": {"match": {"text": "reader"}}})
    assert count["count"] > 0
    hits, resp = _hits(cluster, sharded, {"size": 0, "aggs": {"n": {"filter": {"match": {
        "text": "reader"}}}}})
    assert hits == [] and resp["aggregations"]["n"]["doc_count"] == count["count"]
    first, resp = _hits(cluster, sharded, {"size": 5, "query": {"match": {"text": "header"}}},
                        {"scroll": "1m"})
    dfs_first, _ = _hits(cluster, sharded, {"size": 5, "query": {"match": {"text": "header"}}},
                         {"search_type": "dfs_query_then_fetch", "search_pipeline": "_none"})
    assert first == dfs_first
    page = cluster.request("POST", "/_search/scroll", {"scroll": "1m",
                                                       "scroll_id": resp["_scroll_id"]})
    assert len(page["hits"]["hits"]) == 5
    cluster.request("DELETE", "/_search/scroll", {"scroll_id": [page["_scroll_id"]]})
    install.revert(cluster, sharded)
    assert _state(cluster, sharded) == before  # settings and pipelines byte for byte


def test_an_index_with_its_own_default_pipeline_keeps_its_processors(
        cluster, sharded, common_processors):
    cluster.request("PUT", "/_search/pipeline/qidf-it-team", TEAM)
    cluster.request("PUT", f"/{sharded}/_settings", {"index.search.default_pipeline":
                                                     "qidf-it-team"})
    body = {"size": 10, "query": {"match": {"text": "header typeflag fs reader"}}}
    try:
        before = _state(cluster, sharded)
        team_only, _ = _hits(cluster, sharded, body)
        install.apply(cluster, sharded, QlogParams(0.3), mode=Mode.PLUGIN, stats="index")
        shown = install.show(cluster, sharded)["search_statistics"]
        assert shown["composes"] == "qidf-it-team" and shown["problem"] is None
        got, resp = _hits(cluster, sharded, body)
        want, want_resp = _hits(cluster, sharded, body, {
            "search_pipeline": "qidf-it-team", "search_type": "dfs_query_then_fetch"})
        assert got == want and got != team_only
        # the team's processors still run: the filter (every hit has "reader") and the rename
        assert resp["hits"]["total"] == want_resp["hits"]["total"]
        assert all(set(h["_source"]) == {"doc"} and "reader" in h["_source"]["doc"].lower()
                   for h in resp["hits"]["hits"])
        assert cluster.request("GET", "/_search/pipeline/qidf-it-team")["qidf-it-team"] == TEAM
        install.revert(cluster, sharded)
        assert _state(cluster, sharded) == before
    finally:
        cluster.request("PUT", f"/{sharded}/_settings", {"index.search.default_pipeline": None})
        cluster.request("DELETE", "/_search/pipeline/qidf-it-team")


def test_the_engine_refuses_options_the_processor_does_not_have(cluster, plugin_ready):
    from qidf_ctl.errors import ClusterError

    with pytest.raises(ClusterError, match=r"\[min_shards\] unknown option") as info:
        cluster.request("PUT", "/_search/pipeline/qidf-it-bad", {
            "request_processors": [{"qidf_index_statistics": {"min_shards": 2}}]})
    assert info.value.status == 400
