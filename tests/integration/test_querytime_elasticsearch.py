"""Query-time q-log on Elasticsearch 8.19.21, whose Maven Central distribution has no
Painless: the scripted path is impossible there, the query needs nothing. With the plugin
zip (``QIDF_ES_PLUGIN_ZIP``, built by scripts/test.sh) the node also gets the plugin, and the
boosted query must rank exactly like it; LegacyBM25's (k1 + 1) cancels in the boost ratio.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import plugin
from qidf_ctl.engine import process as local_engine
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.querytime import QueryTime
from qidf_ctl.similarity import Mode, QlogParams

pytestmark = pytest.mark.integration
ES_PORT = int(os.environ.get("QIDF_TEST_ES_PORT", "9230"))
INDEX = "qidf-it-qt-es"


@pytest.fixture(scope="module")
def es_cluster():
    url = os.environ.get("QIDF_TEST_ES_URL")
    if url:
        yield Cluster.connect(ConnectionSettings.from_options(url=url))
        return
    cfg = EngineConfig.from_env(distribution="elasticsearch", port=ES_PORT)
    zip_path = os.environ.get("QIDF_ES_PLUGIN_ZIP")
    info = (plugin.install_local(cfg, Path(zip_path)) if zip_path
            else local_engine.start(cfg))
    try:
        yield Cluster.connect(ConnectionSettings.from_options(url=info["url"]))
    finally:
        local_engine.stop(cfg)


@pytest.fixture(scope="module")
def es_index(es_cluster, go_task):
    indexing.create_index(es_cluster, INDEX)
    assert indexing.bulk_index(es_cluster, INDEX, go_task.corpus) == len(go_task.corpus)
    yield INDEX
    es_cluster.request("DELETE", f"/{INDEX}", None, {"ignore_unavailable": "true"})


def test_qlog_on_elasticsearch_without_painless(es_cluster, es_index, go_task):
    assert es_cluster.engine.distribution == "elasticsearch"
    assert es_cluster.engine.default_is_legacy_bm25
    terms = queries.analyze_all(es_cluster, es_index, indexing.FIELD, go_task.queries)
    q1 = QueryTime.connect(es_cluster, es_index, 1.0)
    plain = runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10)
    assert runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10,
                           queries=q1.queries(terms)) == plain
    qt = QueryTime.connect(es_cluster, es_index, 0.3)
    mine = runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10,
                           queries=qt.queries(terms))
    moved = sum([d for d, _ in mine[qid]] != [d for d, _ in plain[qid]] for qid in terms)
    assert moved > len(terms) // 2  # q-log really changed the rankings
    if not install.presence(es_cluster).everywhere:
        pytest.skip("no plugin on this node to compare with (QIDF_ES_PLUGIN_ZIP not set)")
    install.apply(es_cluster, es_index, QlogParams(0.3), mode=Mode.PLUGIN)
    try:
        theirs = runs.search_run(es_cluster, es_index, indexing.FIELD, terms, k=10)
    finally:
        install.revert(es_cluster, es_index)
    same = sum([d for d, _ in mine[qid]] == [d for d, _ in theirs[qid]] for qid in terms)
    print(f"\nElasticsearch q=0.3: query time and plugin identical top-10 on "
          f"{same}/{len(terms)}")
    assert same == len(terms)
