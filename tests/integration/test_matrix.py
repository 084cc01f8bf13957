"""The engine matrix: the same checks on every engine qidf supports, one engine per run.

``scripts/test_matrix.sh`` runs this module once per engine, setting ``QIDF_MATRIX_ENGINE``
(opensearch-2.19.6, opensearch-3.8.0 and elasticsearch-9.5.3 on a Java 21+ JDK,
elasticsearch-8.19.21),
``QIDF_MATRIX_PLUGIN_ZIP`` (the plugin built for that exact version) and
``QIDF_MATRIX_PORT``; without them it skips. The module starts its own node and stops it.

On each engine: q = 1 parity (the plugin scores exactly like the built-in default, Painless
ranks exactly like it where the engine has Painless), apply / show / revert in both modes,
exact and sampled statistics against an independent count, and one evaluation of the Go
code -> doc task whose NDCG@10 must equal the values measured on the default engine (the
analyzer and the rankings are the same everywhere, only score scales differ), and statistics
snapshots scoring plain searches as explicit dfs on 3 shards.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qidf_ctl import install, stats
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import plugin, process
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.errors import QidfError
from qidf_ctl.evaluation import evaluate, indexing, queries, runs
from qidf_ctl.similarity import Mode, QlogParams

from .test_parity import _same_ranking
from .test_stats import _analyze, assert_matches, independent

pytestmark = pytest.mark.integration

ENGINE = os.environ.get("QIDF_MATRIX_ENGINE")
PORT = int(os.environ.get("QIDF_MATRIX_PORT", "9270"))
INDEX, STATS_INDEX = "qidf-matrix", "qidf-matrix-stats"
STATS_DOCS = 2000
# NDCG@10 of the 300 seeded Go queries (demo.load_task(300, seed=7)), measured on
# OpenSearch 2.19.6: every engine must reproduce them (same tokens, same rankings).
EXPECTED_NDCG = {"bm25": 0.4095, "q0.3": 0.6178}


@pytest.fixture(scope="module")
def engine():
    if not ENGINE:
        pytest.skip("the engine matrix runs in scripts/test_matrix.sh (QIDF_MATRIX_ENGINE)")
    cfg = EngineConfig.from_env(ENGINE, port=PORT)
    zip_path = os.environ.get("QIDF_MATRIX_PLUGIN_ZIP")
    if not zip_path:
        pytest.fail(f"QIDF_MATRIX_PLUGIN_ZIP must name the plugin built for {ENGINE}")
    info = plugin.install_local(cfg, Path(zip_path))
    try:
        yield Cluster.connect(ConnectionSettings.from_options(url=info["url"]))
    finally:
        process.stop(cfg)


@pytest.fixture(scope="module")
def has_painless(engine) -> bool:
    nodes = engine.request("GET", "/_nodes/plugins")["nodes"].values()
    return all("lang-painless" in {m["name"] for m in n.get("modules", [])} for n in nodes)


@pytest.fixture(scope="module")
def index(engine, go_task) -> str:
    indexing.create_index(engine, INDEX)
    assert indexing.bulk_index(engine, INDEX, go_task.corpus) == len(go_task.corpus)
    return INDEX


@pytest.fixture(scope="module")
def terms(engine, index, go_task):
    return queries.analyze_all(engine, index, indexing.FIELD, go_task.queries)


def _settings(cluster, name):
    return cluster.request("GET", f"/{name}/_settings", params={"flat_settings": "true"})


def _versus(base, other):
    worst = 0.0
    for qid, hits in base.items():
        assert hits and _same_ranking(hits, other[qid]), f"ranking differs for {qid}"
        for (_, s0), (_, s1) in zip(hits, other[qid], strict=True):
            worst = max(worst, abs(s0 - s1) / s0)
    return worst


def test_engine_is_the_one_asked_for(engine):
    distribution, version = ENGINE.split("-", 1)
    assert (engine.engine.distribution, engine.engine.version) == (distribution, version)
    assert install.presence(engine).everywhere


@pytest.mark.parametrize("mode", [Mode.PLUGIN, Mode.SCRIPT])
def test_q1_parity_with_the_builtin_default(engine, index, terms, has_painless, mode):
    if mode is Mode.SCRIPT and not has_painless:
        pytest.skip(f"{ENGINE} has no Painless (its Maven Central distribution ships none)")
    install.revert(engine, index)
    builtin = runs.search_run(engine, index, indexing.FIELD, terms, k=10)
    install.apply(engine, index, QlogParams(1.0), mode=mode)
    try:
        assert install.show(engine, index)["mode"] == mode.value
        ours = runs.search_run(engine, index, indexing.FIELD, terms, k=10)
    finally:
        install.revert(engine, index)
    worst = _versus(builtin, ours)
    print(f"\n{ENGINE} {mode.value} q=1 vs built-in: {len(builtin)} queries, same rankings, "
          f"max relative score difference {worst:.2e}")
    assert worst <= (1e-6 if mode is Mode.PLUGIN else 1e-4)


def test_apply_show_revert_in_each_mode(engine, index, has_painless):
    before = _settings(engine, index)
    mode, reason = install.choose_mode(engine, "auto")
    assert mode is Mode.PLUGIN, reason
    for m in (Mode.PLUGIN, Mode.SCRIPT):
        if m is Mode.SCRIPT and not has_painless:
            with pytest.raises(QidfError, match="index was not touched"):
                install.apply(engine, index, QlogParams(0.3), mode=m)
            assert _settings(engine, index) == before
            continue
        result = install.apply(engine, index, QlogParams(0.3), mode=m)
        assert result.changed
        shown = install.show(engine, index)
        assert (shown["kind"], shown["mode"], shown["params"]["q"]) == ("qlog", m.value, 0.3)
        hits = engine.request("POST", f"/{index}/_search", {
            "query": {"match": {indexing.FIELD: "mergePAX merges paxHdrs"}}})["hits"]["hits"]
        assert hits[0]["_id"].endswith(":mergePAX")
        install.revert(engine, index)
        assert _settings(engine, index) == before
        assert install.show(engine, index)["kind"] == "builtin"


@pytest.fixture(scope="module")
def stats_index(engine, go_task):
    ids = sorted(go_task.corpus)[:STATS_DOCS]
    indexing.create_index(engine, STATS_INDEX, shards=3)
    indexing.bulk_index(engine, STATS_INDEX, {i: go_task.corpus[i] for i in ids})
    tokens = _analyze(engine, STATS_INDEX, "text", [go_task.corpus[i] for i in ids])
    yield independent(tokens)
    engine.request("DELETE", f"/{STATS_INDEX}")


def test_stats_exact_and_sampled(engine, stats_index):
    exact = stats.index_stats(engine, STATS_INDEX)
    assert exact.mode == "exact" and exact.shards == 3
    assert_matches(exact.field("text"), stats_index)
    sampled = stats.index_stats(engine, STATS_INDEX, sample=500, seed=3).field("text")
    assert sampled.mode == "sampled" and sampled.documents == stats_index["documents"]
    for name, (low, high) in sampled.intervals.items():
        assert abs(sampled.densities[name] - stats_index["densities"][name]) <= 2 * (high - low)


def test_one_evaluation_reproduces_the_default_engines_numbers(engine, index, go_task):
    base, base_run = evaluate.evaluate_index(engine, index, go_task.queries, go_task.qrels,
                                             depth=100)
    install.apply(engine, index, QlogParams(0.3), mode=Mode.PLUGIN)
    try:
        qlog, _ = evaluate.evaluate_index(engine, index, go_task.queries, go_task.qrels,
                                          depth=100, baseline=base_run, resamples=2000)
    finally:
        install.revert(engine, index)
    got = {"bm25": base.mean["NDCG@10"], "q0.3": qlog.mean["NDCG@10"]}
    print(f"\n{ENGINE} eval (300 Go code queries): NDCG@10 BM25 {got['bm25']:.4f}, q=0.3 "
          f"{got['q0.3']:.4f} (p = {qlog.baseline.p_value:.4f})")
    assert qlog.baseline is not None and qlog.baseline.p_value < 0.01
    assert got == pytest.approx(EXPECTED_NDCG, abs=2e-4)


def test_index_wide_statistics_or_reopen_on_this_engine(engine, go_task):
    """OpenSearch: `--stats index` on 3 shards gives plain searches explicit dfs's hits, and
    revert restores the settings. Elasticsearch: no search pipelines (refused, exit 2), and
    `--strategy reopen` round-trips in one call each way."""
    from qidf_ctl.errors import UsageError

    name = "qidf-matrix-sh3"
    indexing.create_index(engine, name, shards=3)
    indexing.bulk_index(engine, name, dict(list(go_task.corpus.items())[:4000]))
    before = _settings(engine, name)
    try:
        if engine.engine.distribution == "opensearch":
            result = install.apply(engine, name, QlogParams(0.3), mode=Mode.PLUGIN,
                                   stats="index")
            assert result.stats == "index"
            body = {"size": 10, "_source": False,
                    "query": {"match": {indexing.FIELD: "returns the value of the header"}}}
            plain = engine.request("POST", f"/{name}/_search", body)["hits"]["hits"]
            dfs = engine.request("POST", f"/{name}/_search", body, {
                "search_type": "dfs_query_then_fetch", "search_pipeline": "_none"})
            assert [(h["_id"], h["_score"]) for h in plain] == \
                [(h["_id"], h["_score"]) for h in dfs["hits"]["hits"]]
            install.revert(engine, name)
        else:
            with pytest.raises(UsageError, match="no search pipelines"):
                install.apply(engine, name, QlogParams(0.3), mode=Mode.PLUGIN, stats="index")
            result = install.apply(engine, name, QlogParams(0.3), mode=Mode.PLUGIN,
                                   strategy="reopen")
            assert result.changed and install.show(engine, name)["params"]["q"] == 0.3
            install.revert(engine, name, strategy="reopen")
        assert _settings(engine, name) == before
    finally:
        engine.request("DELETE", f"/{name}")


def test_statistics_snapshot_on_this_engine(engine, go_task):
    """`--stats snapshot` on 3 shards with deletions not merged away: plain searches score
    exactly as explicit dfs did with no snapshot (q = 0.3), and at q = 1 exactly as the
    built-in default with dfs; revert leaves the settings as they were and no snapshot."""
    from tests.consistency import snapshot_leftovers

    from .snapshot_support import agreement, sharded_index, snapshot_versus_dfs

    name = "qidf-matrix-snap"
    sharded_index(engine, name, dict(list(go_task.corpus.items())[:4000]))
    subset = dict(list(go_task.queries.items())[:150])
    before = _settings(engine, name)
    try:
        snap, per_shard = snapshot_versus_dfs(engine, name, subset, 0.3)
        print(f"\n{ENGINE} snapshot vs dfs: {snap}; per-shard vs dfs: {per_shard}")
        assert snap["same_ids"] == snap["same_scores"] == len(subset)
        install.revert(engine, name)
        terms = queries.analyze_all(engine, name, indexing.FIELD, subset)
        builtin = runs.search_run(engine, name, indexing.FIELD, terms, k=10)
        install.apply(engine, name, QlogParams(1.0), mode=Mode.PLUGIN, stats="snapshot")
        plain = runs.search_run(engine, name, indexing.FIELD, terms, k=10, search_type=None)
        same = agreement(plain, builtin, tolerance=1e-6)
        assert same["same_ids"] == same["same_scores"] == len(subset), same
        install.revert(engine, name)
        assert _settings(engine, name) == before and not snapshot_leftovers(engine)
    finally:
        engine.request("DELETE", f"/{name}")
