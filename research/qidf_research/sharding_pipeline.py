"""The pipeline column of the sharding benchmark: what a client that knows nothing of qidf
gets from a multi-shard index once ``qidf apply --stats index`` made qidf's default search
pipeline give its scoring searches index-wide statistics.

With the predicted q installed and the pipeline in place, the task's queries are sent as plain
``_msearch`` items (no ``search_type``, no pipeline named). Measured against explicit
``dfs_query_then_fetch`` at the same q on the same index: the share of queries whose top 10
is identical (ids in order, and scores), NDCG@10, and the share of the one-shard gain of
q-log over BM25 kept, ``(pipeline(n) - BM25(1)) / (q-log(1) - BM25(1))``. Latency: plain
``query_then_fetch`` (the pipeline bypassed with ``search_pipeline=_none``), explicit dfs
(bypassed too) and the plain search through the pipeline, interleaved query by query in one
run, so the pipeline's cost is read beside the other two under the same load.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.evaluation.tasks import RetrievalTask
from qidf_ctl.similarity import Mode, QlogParams

PIPELINE = "pipeline"  # the column's search type: plain _search through qidf's pipeline
BYPASS = "_none"
TYPES = {
    "query_then_fetch": {"search_pipeline": BYPASS},
    "dfs_query_then_fetch": {"search_type": "dfs_query_then_fetch", "search_pipeline": BYPASS},
    PIPELINE: {},
}
MEASURE = "NDCG@10"


def agreement(got: runs.Run, want: runs.Run, k: int = 10) -> dict[str, Any]:
    """Per query: the same top ``k`` ids in the same order; and the same scores too."""
    same_ids = same_scores = 0
    differing: list[str] = []
    for qid, hits in want.items():
        a, b = got.get(qid, [])[:k], hits[:k]
        if [d for d, _ in a] == [d for d, _ in b]:
            same_ids += 1
            same_scores += all(abs(x - y) <= 1e-6 * max(abs(y), 1.0)
                               for (_, x), (_, y) in zip(a, b, strict=True))
        else:
            differing.append(qid)
    n = len(want)
    return {"queries": n, "top10_identical": same_ids / n if n else 0.0,
            "scores_identical": same_scores / n if n else 0.0,
            "differing": differing[:20]}


def latency(cluster: Cluster, index: str, terms: dict[str, Any], n_queries: int,
            rounds: int) -> dict[str, Any]:
    """Client wall time of the three request kinds, interleaved query by query (the order
    rotating), after one warm-up pass."""
    qids = sorted(terms)[:n_queries]
    bodies = {q: {"size": 10, "_source": False,
                  "query": queries.term_query(indexing.FIELD, terms[q])} for q in qids}
    kinds = list(TYPES)
    wall: dict[str, list[float]] = {t: [] for t in kinds}
    path = index_path(index, "_search")
    for q in qids:
        for t in kinds:
            cluster.request("POST", path, bodies[q], TYPES[t] or None)
    for rnd in range(rounds):
        for i, q in enumerate(qids):
            shift = (i + rnd) % len(kinds)
            for t in kinds[shift:] + kinds[:shift]:
                started = time.perf_counter()
                cluster.request("POST", path, bodies[q], TYPES[t] or None)
                wall[t].append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {}
    for t in kinds:
        w = sorted(wall[t])
        out[t] = {"p50_ms": statistics.median(w), "p90_ms": w[int(0.9 * (len(w) - 1))],
                  "p99_ms": w[int(0.99 * (len(w) - 1))], "mean_ms": statistics.fmean(w),
                  "searches": len(w)}
    base = out["query_then_fetch"]
    out["pipeline_over_qtf"] = {k: out[PIPELINE][k] / base[k] for k in ("p50_ms", "p90_ms",
                                                                        "p99_ms", "mean_ms")}
    return out


def pipeline_setting(cluster: Cluster, index: str, terms: dict[str, Any], task: RetrievalTask,
                     q: float, mode: Mode, dfs_run: runs.Run, one_shard: dict[str, float],
                     latency_queries: int, latency_rounds: int,
                     log: Callable[[str], None]) -> dict[str, Any]:
    """Install q with ``--stats index``, search plainly, compare with ``dfs_run``; then put
    the index back to per-shard statistics."""
    result = install.apply(cluster, index, QlogParams(q), mode=mode, stats="index")
    try:
        started = time.monotonic()
        run = runs.search_run(cluster, index, indexing.FIELD, terms, k=10, batch_size=50,
                              search_type=None)
        seconds = time.monotonic() - started
        scored = score_run(run, task.qrels)
        lat = latency(cluster, index, terms, latency_queries, latency_rounds)
    finally:
        install.apply(cluster, index, QlogParams(q), mode=mode, stats="shard")
    gain = one_shard["predicted"] - one_shard["bm25"]
    ndcg = scored.mean[MEASURE]
    found: dict[str, Any] = {"search_type": PIPELINE, "predicted_q": q, "predicted": ndcg,
             "pipeline": result.search_pipeline, "run_seconds": seconds,
             "agreement": agreement(run, dfs_run),
             "kept_share": (ndcg - one_shard["bm25"]) / gain if gain else None,
             "latency": lat}
    log(f"{index} pipeline: NDCG@10 {ndcg:.4f}, top-10 identical to dfs on "
        f"{found['agreement']['top10_identical']:.1%}, p50 {lat[PIPELINE]['p50_ms']:.2f} ms vs "
        f"qtf {lat['query_then_fetch']['p50_ms']:.2f} ms")
    return found
