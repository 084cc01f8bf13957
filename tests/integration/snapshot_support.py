"""Shared pieces of the statistics-snapshot tests (OpenSearch, Elasticsearch, the engine
matrix): a multi-shard index of real documents with deletions not yet merged away, and the
comparison of a plain search under a snapshot with explicit dfs under none."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, index_path, segment
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.similarity import Mode, QlogParams

DELETED = 150  # documents deleted (and not merged away: df still counts them, as dfs does)


def sharded_index(cluster: Cluster, name: str, corpus: dict[str, str], shards: int = 3) -> str:
    """``corpus`` in ``shards`` shards, several segments each, ``DELETED`` documents deleted."""
    indexing.create_index(cluster, name, analyzer="standard", shards=shards)
    items = list(corpus.items())
    third = len(items) // 3
    for start in (0, third, 2 * third):  # three bulks, each refreshed: several segments
        part = dict(items[start:start + third] if start < 2 * third else items[start:])
        indexing.bulk_index(cluster, name, part)
        cluster.request("POST", index_path(name, "_refresh"))
    for doc_id, _ in items[::max(1, len(items) // DELETED)][:DELETED]:
        cluster.request("DELETE", index_path(name, "_doc") + "/" + segment(doc_id))
    cluster.request("POST", index_path(name, "_refresh"))
    return name


def agreement(got: runs.Run, want: runs.Run, tolerance: float = 1e-5) -> dict[str, Any]:
    """Queries whose top hits have the same ids in the same order, and scores within
    ``tolerance`` (relative) too; the worst relative score difference."""
    same = scores = 0
    worst = 0.0
    for qid, hits in want.items():
        mine = got.get(qid, [])
        if [d for d, _ in mine] != [d for d, _ in hits]:
            continue
        same += 1
        diffs = [abs(a - b) / max(abs(b), 1e-30) for (_, a), (_, b) in zip(mine, hits,
                                                                           strict=True)]
        worst = max([worst, *diffs])
        scores += all(d <= tolerance for d in diffs)
    return {"queries": len(want), "same_ids": same, "same_scores": scores, "worst": worst}


def snapshot_versus_dfs(cluster: Cluster, index: str, task_queries: dict[str, str],
                        q: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """At ``q``: explicit dfs with no snapshot, then ``apply --stats snapshot`` and plain
    searches. (agreement of the snapshot with dfs, of plain per-shard searches with dfs)."""
    terms = queries.analyze_all(cluster, index, indexing.FIELD, task_queries)
    install.apply(cluster, index, QlogParams(q), mode=Mode.PLUGIN, stats="shard")
    dfs = runs.search_run(cluster, index, indexing.FIELD, terms, k=10)
    per_shard = runs.search_run(cluster, index, indexing.FIELD, terms, k=10,
                                search_type="query_then_fetch")
    result = install.apply(cluster, index, QlogParams(q), mode=Mode.PLUGIN, stats="snapshot")
    assert result.stats == "snapshot" and result.stats_snapshot == index, result.as_dict()
    plain = runs.search_run(cluster, index, indexing.FIELD, terms, k=10, search_type=None)
    return agreement(plain, dfs), agreement(per_shard, dfs)


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``qidf ARGS`` in a child process: exit code, stdout, stderr."""
    done = subprocess.run([sys.executable, "-m", "qidf_ctl", *args], capture_output=True,
                          text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr
