"""The statistics snapshot against dfs and the pipeline (issue 34): what a client that knows
nothing of qidf gets from a sharded index, at what cost, and how it drifts as documents are
added.

Corpus: a seeded 40,000-document slice of the go-large code -> doc task (real Go docstrings
from the research's corpus cache; 1,000 seeded code queries whose relevant document is in the
slice), the size on which the dfs round trip costs the most, relatively. For each shard count
(1, 3, 12), q fixed (0.3, as issue 34 measured), the plugin's similarity:

- ``A`` (``qidf-snap-<n>sh``): the slice, force-merged to one segment per shard, q installed
  with per-shard statistics; the reference is explicit ``dfs_query_then_fetch`` on it;
- ``B``: a ``_clone`` of ``A`` (hard links: the same segments, the same statistics) to which
  ``qidf apply --stats snapshot`` gives a statistics snapshot; plain searches (no search type,
  no pipeline named) on ``B`` are the snapshot column;
- ``A`` with ``qidf apply --stats index`` (qidf's default pipeline) is the pipeline column;
- ``C``: a second clone of ``A``, without a snapshot: plain searches on it ("twin") measure
  how far two copies of one index differ in time, the noise floor of snapshot against plain.

Measured: top-10 agreement with explicit dfs (ids in order; scores within 1e-5 relative) and
NDCG@10 of every column; client wall time of plain ``query_then_fetch`` (A, pipeline bypassed),
explicit dfs (A, bypassed), the pipeline (A) and the snapshot (B), interleaved query by query
with the order rotating, after a warm-up pass: per kind p50/p90/p99, and per query the median
over rounds, whose ratios to plain are summarised by their median.

Drift (3 and 12 shards): ``C`` and ``B`` get the
same new documents (docstrings of go-large outside the slice, in file order: +1%, +10%, +50%
of the slice, cumulatively), without a refresh of the snapshot: plain searches on ``B`` against
explicit dfs on ``C``. Then ``qidf snapshot refresh B`` and the same comparison once more.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.evaluation.pairs import Pair
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.evaluation.tasks import RetrievalTask, code_to_doc
from qidf_ctl.similarity import Mode, QlogParams

DOCUMENTS = 40_000
QUERIES = 1000
Q = 0.3
ROUNDS = 3
DRIFT_STEPS = (0.01, 0.10, 0.50)
BYPASS = "_none"
KINDS = {  # request parameters of each kind; snapshot searches index B, twin index C
    "plain": {"search_pipeline": BYPASS},
    "dfs": {"search_type": "dfs_query_then_fetch", "search_pipeline": BYPASS},
    "pipeline": {},
    "snapshot": {},
    "twin": {},
}
MEASURE = "NDCG@10"
Log = Callable[[str], None]


def slice_task(pairs: list[Pair], documents: int = DOCUMENTS, n_queries: int = QUERIES,
               seed: int = 34) -> tuple[RetrievalTask, list[Pair]]:
    """The seeded slice's task, and the pairs left out (in file order: the added documents)."""
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    chosen = set(order[:documents])
    inside = [p for i, p in enumerate(pairs) if i in chosen]
    outside = [p for i, p in enumerate(pairs) if i not in chosen]
    return code_to_doc(inside, max_queries=n_queries, seed=0), outside


def _close(x: float, y: float, tolerance: float = 1e-5) -> bool:
    return abs(x - y) <= tolerance * max(abs(y), 1e-30)


def same_up_to_ties(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    """The same scores in order, and the same ids but for the order of documents whose scores
    are equal (the engine orders those by internal document number, which differs between two
    copies of an index once their segments differ), and the ids of a tie cut by the end."""
    if len(a) != len(b) or not all(_close(x, y) for (_, x), (_, y) in zip(a, b, strict=True)):
        return False
    i = 0
    while i < len(a):
        j = i + 1
        while j < len(a) and abs(a[j][1] - a[i][1]) <= 1e-7 * max(abs(a[i][1]), 1e-30):
            j += 1
        if j < len(a) and {d for d, _ in a[i:j]} != {d for d, _ in b[i:j]}:
            return False
        i = j
    return True


def agreement(got: runs.Run, want: runs.Run, k: int = 10) -> dict[str, Any]:
    """Per query: the same top ``k`` ids in order (and the scores within 1e-5 relative too);
    and the same up to the order of tied scores."""
    same = scores = tied = 0
    worst = 0.0
    for qid, hits in want.items():
        a, b = got.get(qid, [])[:k], hits[:k]
        tied += same_up_to_ties(a, b)
        if [d for d, _ in a] != [d for d, _ in b]:
            continue
        same += 1
        diffs = [abs(x - y) / max(abs(y), 1e-30) for (_, x), (_, y) in zip(a, b, strict=True)]
        worst = max([worst, *diffs])
        scores += all(d <= 1e-5 for d in diffs)
    n = len(want)
    return {"queries": n, "top10_identical": same / n if n else 0.0,
            "scores_identical": scores / n if n else 0.0,
            "same_up_to_ties": tied / n if n else 0.0, "worst_relative": worst}


def ndcg(run: runs.Run, task: RetrievalTask) -> float:
    return float(score_run(run, task.qrels).mean[MEASURE])


def clone(cluster: Cluster, source: str, target: str) -> None:
    """A hard-linked copy of ``source`` (same segments) with no default pipeline."""
    if cluster.request("HEAD", index_path(target)) is not False:
        install.revert(cluster, target)
        cluster.request("DELETE", index_path(target))
    cluster.request("PUT", index_path(source, "_block", "write"))
    try:
        cluster.request("POST", index_path(source, "_clone", target), {"settings": {
            "index.blocks.write": None, "index.search.default_pipeline": None,
            "index.number_of_replicas": 0}})
    finally:
        cluster.request("PUT", index_path(source, "_settings"), {"index.blocks.write": None})
    cluster.request("GET", f"/_cluster/health/{target}", params={"wait_for_status": "green",
                                                                 "timeout": "50s"})


def drop(cluster: Cluster, name: str) -> None:
    if cluster.request("HEAD", index_path(name)) is not False:
        install.revert(cluster, name)
        cluster.request("DELETE", index_path(name))


def latency(cluster: Cluster, a: str, b: str, c: str, terms: dict[str, Any],
            rounds: int = ROUNDS) -> dict[str, Any]:
    """Client wall time of the five kinds, interleaved query by query, the order rotating:
    plain, dfs and the pipeline on A, the snapshot on its clone B, and plain searches on its
    clone C without a snapshot ("twin": how far two copies of one index differ in time, the
    noise floor of the snapshot's comparison with plain)."""
    qids = sorted(terms)
    bodies = {q: {"size": 10, "_source": False,
                  "query": queries.term_query(indexing.FIELD, terms[q])} for q in qids}
    kinds = list(KINDS)
    where = {"snapshot": b, "twin": c}
    paths = {k: index_path(where.get(k, a), "_search") for k in kinds}
    times: dict[str, dict[str, list[float]]] = {k: {q: [] for q in qids} for k in kinds}
    for q in qids:  # warm-up
        for k in kinds:
            cluster.request("POST", paths[k], bodies[q], KINDS[k] or None)
    for rnd in range(rounds):
        for i, q in enumerate(qids):
            shift = (i + rnd) % len(kinds)
            for k in kinds[shift:] + kinds[:shift]:
                started = time.perf_counter()
                cluster.request("POST", paths[k], bodies[q], KINDS[k] or None)
                times[k][q].append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {"rounds": rounds, "queries": len(qids)}
    medians = {k: {q: statistics.median(v) for q, v in times[k].items()} for k in kinds}
    for k in kinds:
        every = sorted(t for v in times[k].values() for t in v)
        out[k] = {"p50_ms": statistics.median(every), "p90_ms": every[int(0.9 * (len(every) - 1))],
                  "p99_ms": every[int(0.99 * (len(every) - 1))], "mean_ms": statistics.fmean(every),
                  "searches": len(every)}
    for k in ("dfs", "pipeline", "snapshot", "twin"):
        ratios = [medians[k][q] / medians["plain"][q] for q in qids if medians["plain"][q] > 0]
        out[f"{k}_over_plain"] = {
            "p50": out[k]["p50_ms"] / out["plain"]["p50_ms"],
            "median_per_query": statistics.median(ratios),
            "mean_ms_difference": out[k]["mean_ms"] - out["plain"]["mean_ms"]}
    return out


def shard_setting(cluster: Cluster, task: RetrievalTask, outside: list[Pair], shards: int,
                  log: Log, ensure: Callable[[Cluster, str, RetrievalTask, int], None],
                  drift: bool) -> dict[str, Any]:
    """Every column at ``shards``; the drift series when ``drift``."""
    a = f"qidf-snap-{shards}sh"
    b, c = f"{a}-snapshot", f"{a}-twin"
    ensure(cluster, a, task, shards)
    params = QlogParams(Q)
    install.apply(cluster, a, params, mode=Mode.PLUGIN, stats="shard")
    terms = queries.analyze_all(cluster, a, indexing.FIELD, task.queries)
    found: dict[str, Any] = {"shards": shards, "q": Q, "documents": len(task.corpus)}
    try:
        dfs = runs.search_run(cluster, a, indexing.FIELD, terms, k=10)
        plain = runs.search_run(cluster, a, indexing.FIELD, terms, k=10,
                                search_type="query_then_fetch")
        clone(cluster, a, b)
        clone(cluster, a, c)
        took = time.monotonic()
        applied = install.apply(cluster, b, params, mode=Mode.PLUGIN, stats="snapshot")
        found["snapshot_apply_seconds"] = round(time.monotonic() - took, 2)
        assert applied.stats == "snapshot", applied.as_dict()
        held = install.show(cluster, b)["search_statistics"]["snapshot"]
        found["snapshot"] = {k: held.get(k) for k in ("terms", "heap_bytes", "bytes", "took_ms",
                                                      "nodes_holding", "data_nodes")}
        snap = runs.search_run(cluster, b, indexing.FIELD, terms, k=10, search_type=None)
        install.apply(cluster, a, params, mode=Mode.PLUGIN, stats="index")
        piped = runs.search_run(cluster, a, indexing.FIELD, terms, k=10, search_type=None)
        found["ndcg"] = {"plain": ndcg(plain, task), "dfs": ndcg(dfs, task),
                         "pipeline": ndcg(piped, task), "snapshot": ndcg(snap, task)}
        found["agreement"] = {"plain": agreement(plain, dfs), "pipeline": agreement(piped, dfs),
                              "snapshot": agreement(snap, dfs)}
        log(f"{shards} shards: snapshot top-10 = dfs on "
            f"{found['agreement']['snapshot']['top10_identical']:.1%}, NDCG@10 "
            f"{found['ndcg']['snapshot']:.4f} (dfs {found['ndcg']['dfs']:.4f}, plain "
            f"{found['ndcg']['plain']:.4f})")
        found["latency"] = latency(cluster, a, b, c, terms)
        lat = found["latency"]
        log(f"{shards} shards: p50 plain {lat['plain']['p50_ms']:.2f} ms, dfs "
            f"{lat['dfs']['p50_ms']:.2f}, pipeline {lat['pipeline']['p50_ms']:.2f}, snapshot "
            f"{lat['snapshot']['p50_ms']:.2f}; snapshot/plain per query "
            f"{lat['snapshot_over_plain']['median_per_query']:.3f}, twin/plain "
            f"{lat['twin_over_plain']['median_per_query']:.3f}")
        install.apply(cluster, a, params, mode=Mode.PLUGIN, stats="shard")
        if drift:
            found["drift"] = drift_series(cluster, b, c, task, outside, terms, log)
    finally:
        drop(cluster, b)
        drop(cluster, c)
    return found


def drift_series(cluster: Cluster, b: str, c: str, task: RetrievalTask, outside: list[Pair],
                 terms: dict[str, Any], log: Log) -> list[dict[str, Any]]:
    """Documents added to the snapshot's index and its twin without a refresh, then one."""
    base = len(task.corpus)
    rows = []
    added = 0
    known = set(task.corpus)
    extra = [(f"added:{p.id}", p.doc) for p in outside if p.doc and p.id not in known]
    for share in DRIFT_STEPS:
        want = round(base * share)
        batch = dict(extra[added:want])
        for name in (b, c):
            indexing.bulk_index(cluster, name, batch)
            cluster.request("POST", index_path(name, "_refresh"))
        added = want
        rows.append(drift_row(cluster, b, c, task, terms, share, added, refreshed=False))
        log(f"{b}: +{share:.0%} documents: snapshot top-10 = dfs on "
            f"{rows[-1]['agreement']['snapshot']['top10_identical']:.1%}")
    install.refresh(cluster, b)
    rows.append(drift_row(cluster, b, c, task, terms, DRIFT_STEPS[-1], added, refreshed=True))
    return rows


def drift_row(cluster: Cluster, b: str, c: str, task: RetrievalTask, terms: dict[str, Any],
              share: float, added: int, refreshed: bool) -> dict[str, Any]:
    dfs = runs.search_run(cluster, c, indexing.FIELD, terms, k=10)
    plain = runs.search_run(cluster, c, indexing.FIELD, terms, k=10,
                            search_type="query_then_fetch")
    snap = runs.search_run(cluster, b, indexing.FIELD, terms, k=10, search_type=None)
    stale = install.show(cluster, b)["search_statistics"]["snapshot"]["staleness"]
    return {"added_share": share, "added": added, "refreshed": refreshed,
            "staleness": stale,
            "agreement": {"snapshot": agreement(snap, dfs), "plain": agreement(plain, dfs)},
            "ndcg": {"dfs": ndcg(dfs, task), "snapshot": ndcg(snap, task),
                     "plain": ndcg(plain, task)}}
