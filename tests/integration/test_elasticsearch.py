"""qidf on a real Elasticsearch node (8.19.21, the integ-test distribution from Maven Central).

That distribution has no Painless (and Maven Central publishes none), so here the native
plugin is the path: its q = 1 must score exactly like Elasticsearch's built-in default, and
asking for Painless must fail cleanly before the index is touched. ``scripts/test.sh`` builds
the Elasticsearch plugin zip and sets ``QIDF_ES_PLUGIN_ZIP``; without it these tests skip.
"""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.errors import QidfError
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.similarity import Mode, QlogParams

from .test_parity import _same_ranking

pytestmark = pytest.mark.integration
INDEX = "qidf-it-es"


@pytest.fixture(scope="module")
def es_index(es_cluster, go_task):
    indexing.create_index(es_cluster, INDEX)
    assert indexing.bulk_index(es_cluster, INDEX, go_task.corpus) == len(go_task.corpus)
    return INDEX


def _settings(cluster):
    return cluster.request("GET", f"/{INDEX}/_settings", params={"flat_settings": "true"})


def test_detects_elasticsearch(es_cluster):
    assert es_cluster.engine.distribution == "elasticsearch"
    assert es_cluster.engine.default_is_legacy_bm25
    assert install.presence(es_cluster).everywhere


def test_plugin_q1_equals_elasticsearch_default(es_cluster, es_index, go_task):
    terms = queries.analyze_all(es_cluster, es_index, indexing.FIELD, go_task.queries)
    builtin = runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10)
    install.apply(es_cluster, es_index, QlogParams(1.0), mode=Mode.PLUGIN)
    try:
        native = runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10)
    finally:
        install.revert(es_cluster, es_index)
    worst = 0.0
    for qid, hits in builtin.items():
        assert hits and _same_ranking(hits, native[qid]), qid
        for (_, s0), (_, s1) in zip(hits, native[qid], strict=True):
            worst = max(worst, abs(s0 - s1) / s0)
    print(f"\nElasticsearch plugin q=1 vs built-in: {len(builtin)} queries, "
          f"max relative difference {worst:.2e}")
    assert worst <= 1e-6


def test_painless_missing_fails_before_touching_the_index(es_cluster, es_index):
    before = _settings(es_cluster)
    with pytest.raises(QidfError, match=r"rejected the similarity.*index was not touched"):
        install.apply(es_cluster, es_index, QlogParams(0.3), mode=Mode.SCRIPT)
    assert _settings(es_cluster) == before
    assert es_cluster.index_state(es_index) == "open"


def test_plugin_apply_show_revert(es_cluster, es_index):
    before = _settings(es_cluster)
    mode, reason = install.choose_mode(es_cluster, "auto")
    assert mode is Mode.PLUGIN, reason
    install.apply(es_cluster, es_index, QlogParams(0.3), mode=mode)
    shown = install.show(es_cluster, es_index)
    assert shown["mode"] == "plugin" and shown["params"]["q"] == 0.3
    hits = es_cluster.request("POST", f"/{es_index}/_search", {
        "query": {"match": {indexing.FIELD: "mergePAX merges paxHdrs"}}})["hits"]["hits"]
    assert hits[0]["_id"].endswith(":mergePAX")
    install.revert(es_cluster, es_index)
    assert _settings(es_cluster) == before


def test_reopen_is_one_call_and_revert_restores_exactly(es_cluster, es_index):
    """--strategy reopen: PUT _settings?reopen=true; the index is searchable when apply
    returns, and revert (reopen too) restores the settings byte for byte."""
    before = _settings(es_cluster)
    result = install.apply(es_cluster, es_index, QlogParams(0.3), mode=Mode.PLUGIN,
                           strategy="reopen")
    assert result.changed and result.closed_seconds > 0
    assert set(result.step_seconds) == {"reopened", "searchable", "recorded"}
    assert install.show(es_cluster, es_index)["params"]["q"] == 0.3
    hits = es_cluster.request("POST", f"/{es_index}/_search", {
        "query": {"match": {indexing.FIELD: "mergePAX merges paxHdrs"}}})["hits"]["hits"]
    assert hits[0]["_id"].endswith(":mergePAX")
    print(f"\nreopen apply: window {result.closed_seconds:.2f}s, steps {result.step_seconds}")
    install.revert(es_cluster, es_index, strategy="reopen")
    assert _settings(es_cluster) == before


def test_stats_index_is_refused_on_elasticsearch_with_the_client_change(es_cluster, es_index):
    import subprocess
    import sys

    before = _settings(es_cluster)
    url = es_cluster.url
    done = subprocess.run([sys.executable, "-m", "qidf_ctl", "apply", es_index, "--q", "0.3",
                           "--stats", "index", "--url", url], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: --stats index needs a "
                                                           "search pipeline")
    assert "search_type=dfs_query_then_fetch" in done.stderr
    assert _settings(es_cluster) == before
