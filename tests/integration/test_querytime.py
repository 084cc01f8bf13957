"""Query-time q-log on the real engine: the boosted query ranks exactly like the installed
similarity (Painless and plugin) on one shard, q = 1 is the BM25 query bit for bit, several
shards need dfs_query_then_fetch, and an index that cannot be changed still gets q-log.

The full measurement (1,000 queries per corpus at four q, several shards) is
``research/qidf_research/bench_querytime.py``; these are its smaller, fast versions.
"""

from __future__ import annotations

import json
import math

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.querytime import DFS, QueryTime
from qidf_ctl.similarity import Mode, QlogParams

pytestmark = pytest.mark.integration
SHARDED = "qidf-it-qt-3shards"


@pytest.fixture(scope="module")
def terms(cluster, parity_index, go_task):
    return queries.analyze_all(cluster, parity_index, indexing.FIELD, go_task.queries)


def _run(cluster, index, terms, bodies=None, search_type=None):
    return runs.search_run(cluster, index, indexing.FIELD, terms, k=10,
                           search_type=search_type, queries=bodies)


def _installed(cluster, index, terms, q, mode, search_type=None):
    install.apply(cluster, index, QlogParams(q), mode=mode)
    try:
        return _run(cluster, index, terms, search_type=search_type)
    finally:
        install.revert(cluster, index)


def _identical(a, b):
    """Queries whose top 10 are the same documents in the same order."""
    return sum([d for d, _ in a[qid]] == [d for d, _ in b[qid]] for qid in a)


def _worst_rel(a, b):
    return max((abs(x - y) / x for qid in a for (_, x), (_, y) in zip(a[qid], b[qid],
                                                                      strict=False)),
               default=0.0)


def _modes(cluster):
    return [Mode.SCRIPT] + ([Mode.PLUGIN] if install.presence(cluster).everywhere else [])


def test_q1_is_the_bm25_query(cluster, parity_index, terms, go_task):
    install.revert(cluster, parity_index)
    qt = QueryTime.connect(cluster, parity_index, 1.0)
    assert qt.scope == "shard" and qt.search_type is None
    built = qt.queries(terms)
    assert all(built[qid] == queries.term_query(indexing.FIELD, terms[qid]) for qid in terms)
    plain = _run(cluster, parity_index, terms)
    assert _run(cluster, parity_index, terms, built) == plain  # ids and scores, bit for bit
    # and what users send: a match query on a docstring ranks the same
    for qid in sorted(go_task.queries)[:50]:
        text = go_task.corpus[qid]
        match = cluster.request("POST", f"/{parity_index}/_search", {
            "size": 10, "query": {"match": {indexing.FIELD: text}}})["hits"]["hits"]
        hits = qt.search(qt.build(text), 10)
        assert [h["_id"] for h in hits] == [h["_id"] for h in match]
        for a, b in zip(hits, match, strict=True):
            assert math.isclose(a["_score"], b["_score"], rel_tol=1e-6)


@pytest.mark.parametrize("q", [0.05, 0.3])
def test_one_shard_ranks_like_the_installed_similarity(cluster, parity_index, terms, q):
    install.revert(cluster, parity_index)
    qt = QueryTime.connect(cluster, parity_index, q)
    mine = _run(cluster, parity_index, terms, qt.queries(terms))
    for mode in _modes(cluster):
        theirs = _installed(cluster, parity_index, terms, q, mode)
        same, worst = _identical(theirs, mine), _worst_rel(theirs, mine)
        print(f"\nq={q} {mode.value}: identical top-10 on {same}/{len(terms)}, "
              f"max relative score difference {worst:.1e}")
        assert same == len(terms)
        assert worst < 1e-5


@pytest.fixture(scope="module")
def sharded(cluster, go_task):
    indexing.create_index(cluster, SHARDED, shards=3)
    assert indexing.bulk_index(cluster, SHARDED, go_task.corpus) == len(go_task.corpus)
    yield SHARDED
    cluster.request("DELETE", f"/{SHARDED}", None, {"ignore_unavailable": "true"})


def test_three_shards_need_dfs(cluster, sharded, terms):
    """Index-wide statistics + dfs_query_then_fetch reproduce the installed similarity under
    dfs exactly; one shard's statistics under default search cannot (each shard scores with
    its own df, a request carries one boost per term)."""
    q = 0.3
    qt = QueryTime.connect(cluster, sharded, q)
    assert qt.scope == "index" and qt.search_type == DFS
    dfs_mine = _run(cluster, sharded, terms, qt.queries(terms), DFS)
    per_shard = QueryTime.connect(cluster, sharded, q, stats="shard", shard=0)
    qtf_mine = _run(cluster, sharded, terms, per_shard.queries(terms))
    install.apply(cluster, sharded, QlogParams(q), mode=Mode.SCRIPT)
    try:
        dfs_theirs = _run(cluster, sharded, terms, search_type=DFS)
        qtf_theirs = _run(cluster, sharded, terms)
    finally:
        install.revert(cluster, sharded)
    dfs_same, qtf_same = _identical(dfs_theirs, dfs_mine), _identical(qtf_theirs, qtf_mine)
    print(f"\n3 shards, q={q}: dfs identical {dfs_same}/{len(terms)}; default search with "
          f"shard 0's statistics identical {qtf_same}/{len(terms)}")
    assert dfs_same == len(terms)
    assert qtf_same < len(terms)


def test_index_that_cannot_change_still_gets_qlog(cluster, parity_index, terms, go_task):
    """Write-blocked, and closing disabled cluster-wide (as on some managed offerings):
    `qidf search` needs neither."""
    from typer.testing import CliRunner

    from qidf_ctl.cli import app

    install.revert(cluster, parity_index)
    qid = sorted(go_task.queries)[3]
    qt = QueryTime.connect(cluster, parity_index, 0.3)
    expected = qt.build(go_task.queries[qid])
    expected_ids = [h["_id"] for h in qt.search(expected, 10)]
    settings = f"/{parity_index}/_settings"
    cluster.request("PUT", settings, {"index.blocks.write": True})
    cluster.request("PUT", "/_cluster/settings",
                    {"persistent": {"cluster.indices.close.enable": False}})
    try:
        result = CliRunner().invoke(app, [
            "search", parity_index, go_task.queries[qid], "--q", "0.3", "--json",
            "--url", cluster.url])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["request"]["body"]["query"] == expected.query
        assert [h["id"] for h in data["hits"]] == expected_ids
    finally:
        cluster.request("PUT", "/_cluster/settings",
                        {"persistent": {"cluster.indices.close.enable": None}})
        cluster.request("PUT", settings, {"index.blocks.write": None})
    assert cluster.index_state(parity_index) == "open"
