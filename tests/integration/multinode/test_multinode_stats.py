"""``qidf stats`` on an index spread over 3 nodes (6 shards, 1 replica, deletions not merged
away), checked against an independent count, exactly as the single-node tests do.

The independent side tokenizes every document with the engine's own analyzer (``_analyze``,
one call per document) and counts with Counters (``tests/integration/test_stats.py``). Term
vectors and shard-level lookups now come from copies on three nodes: exact mode must still
agree to the last count, and sampled mode must report the engine's totals and intervals that
hold the exact densities.
"""

from __future__ import annotations

import json

import pytest

from qidf_ctl import stats
from qidf_ctl.evaluation import indexing

from ..test_stats import _analyze, assert_matches, independent
from .conftest import wait_green

pytestmark = pytest.mark.integration

INDEX = "qidf-mn-stats"
DOCS, DELETE_EVERY = 3000, 25


@pytest.fixture(scope="module")
def spread(cluster3, go_task):
    """(live token lists, deleted token lists) of an index with copies on every node."""
    ids = sorted(go_task.corpus)[:DOCS]
    indexing.create_index(cluster3, INDEX, shards=6, replicas=1)
    indexing.bulk_index(cluster3, INDEX, {i: go_task.corpus[i] for i in ids})
    doomed = ids[::DELETE_EVERY]
    lines = "".join(json.dumps({"delete": {"_index": INDEX, "_id": i}}) + "\n" for i in doomed)
    assert not cluster3.request("POST", "/_bulk", lines)["errors"]
    cluster3.request("POST", f"/{INDEX}/_refresh")
    wait_green(cluster3, INDEX)
    rows = cluster3.request("GET", f"/_cat/shards/{INDEX}", params={"format": "json"})
    assert len({r["node"] for r in rows}) == 3 and len(rows) == 12
    tokens = dict(zip(ids, _analyze(cluster3, INDEX, "text", [go_task.corpus[i] for i in ids]),
                      strict=True))
    live = [tokens[i] for i in ids if i not in set(doomed)]
    yield live, [tokens[i] for i in doomed]
    cluster3.request("DELETE", f"/{INDEX}")


def test_exact_across_nodes_equals_the_independent_count(cluster3, spread):
    live, deleted = spread
    result = stats.index_stats(cluster3, INDEX)
    f = result.field("text")
    expected = independent(live, deleted)
    assert result.mode == "exact" and result.shards == 6
    assert result.live_documents == len(live)
    assert_matches(f, expected)
    assert f.engine_densities is not None  # deletions still in Lucene's statistics
    assert f.engine_densities["tokens"] == pytest.approx(expected["engine_tokens"], rel=1e-12)


def test_sampled_across_nodes_holds_the_exact_values(cluster3, spread):
    live, deleted = spread
    exact = independent(live, deleted)
    covered = {name: 0 for name in exact["densities"]}
    seeds = range(1, 6)
    for seed in seeds:
        f = stats.index_stats(cluster3, INDEX, sample=600, seed=seed).field("text")
        assert f.mode == "sampled" and f.sampled_documents == 600
        assert f.documents == pytest.approx(exact["documents"], rel=0.05)
        for name, (low, high) in f.intervals.items():
            truth = exact["densities"][name]
            covered[name] += low <= truth <= high
            assert abs(f.densities[name] - truth) <= 2 * (high - low), (seed, name)
    print(f"\nsampled on 3 nodes: intervals holding the exact value over {len(seeds)} seeds: "
          f"{covered}")
    assert min(covered.values()) >= len(seeds) - 1, covered
