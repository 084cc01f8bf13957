"""One corpus, measured: the query-time runs against the installed similarity's runs.

One shard: for every q, the boosted query (statistics of the one shard) against Painless and
the plugin installed on the same index, same segments. Several shards: the installed plugin
with default search (query_then_fetch: each shard scores with its own df) and with
dfs_query_then_fetch (index-wide df), against query time with index-wide statistics under
dfs, and under default search with one shard's or with index-wide statistics.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import RetrievalTask, indexing, queries, runs
from qidf_ctl.evaluation.runs import Run
from qidf_ctl.querytime import DFS, QueryTime
from qidf_ctl.similarity import Mode, QlogParams
from qidf_research.querytime.compare import agreement, ndcg10

Log = Callable[[str], None]
Terms = Mapping[str, Counter[str]]


@dataclass
class Corpus:
    name: str
    task: RetrievalTask
    terms: dict[str, Counter[str]] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)


def build_index(cluster: Cluster, name: str, corpus: Mapping[str, str], shards: int) -> float:
    """A fresh index of ``corpus`` (standard analyzer); returns the seconds it took."""
    t0 = time.monotonic()
    indexing.create_index(cluster, name, shards=shards)
    count = indexing.bulk_index(cluster, name, corpus)
    if count != len(corpus):
        raise RuntimeError(f"{name} holds {count} documents, expected {len(corpus)}")
    return time.monotonic() - t0


def _search(cluster: Cluster, index: str, terms: Terms, bodies: Mapping[str, Any] | None = None,
            search_type: str | None = None) -> Run:
    return runs.search_run(cluster, index, indexing.FIELD, terms, k=10,
                           search_type=search_type, queries=bodies)


def _installed(cluster: Cluster, index: str, terms: Terms, q: float, mode: Mode,
               search_types: tuple[str | None, ...] = (None,)) -> dict[str | None, Run]:
    install.apply(cluster, index, QlogParams(q), mode=mode)
    try:
        return {st: _search(cluster, index, terms, search_type=st) for st in search_types}
    finally:
        install.revert(cluster, index)


def analyse(cluster: Cluster, index: str, corpus: Corpus, log: Log) -> None:
    """Tokens of every query once, under the index's analyzer; queries with none are left
    out of every comparison (both sides would match nothing or everything)."""
    terms = queries.analyze_all(cluster, index, indexing.FIELD, corpus.task.queries)
    corpus.terms = {qid: c for qid, c in terms.items() if c}
    left_out = len(terms) - len(corpus.terms)
    corpus.task.qrels = {qid: corpus.task.qrels[qid] for qid in corpus.terms}
    corpus.results["queries"] = len(corpus.terms)
    corpus.results["queries_without_tokens"] = left_out
    log(f"{corpus.name}: {len(corpus.terms)} queries with tokens ({left_out} without)")


def one_shard(cluster: Cluster, index: str, corpus: Corpus, qs: tuple[float, ...],
              modes: tuple[Mode, ...], log: Log) -> dict[str, Any]:
    terms, qrels = corpus.terms, corpus.task.qrels
    install.revert(cluster, index)
    plain = _search(cluster, index, terms)
    qt = QueryTime.connect(cluster, index, 1.0)
    out: dict[str, Any] = {"bm25_ndcg10": _mean(ndcg10(plain, qrels)), "by_q": {}}
    for q in qs:
        t0 = time.monotonic()
        mine = _search(cluster, index, terms, qt.queries(terms, q))
        row: dict[str, Any] = {"query_time_seconds": time.monotonic() - t0}
        if q == 1.0:
            row["q1_identical_to_bm25_ids_and_scores"] = sum(mine[k] == plain[k] for k in plain)
        for mode in modes:
            theirs = _installed(cluster, index, terms, q, mode)[None]
            row[mode.value] = agreement(theirs, mine, qrels).as_dict()
            a = row[mode.value]
            log(f"{corpus.name} 1 shard q={q:g} {mode.value}: identical top-10 "
                f"{a['identical_top10']}/{a['queries']}, max rel diff "
                f"{a['max_rel_score_diff']:.1e}, NDCG@10 {a['ndcg_reference']:.4f}")
        out["by_q"][f"{q:g}"] = row
    return out


def several_shards(cluster: Cluster, index: str, corpus: Corpus, qs: tuple[float, ...],
                   mode: Mode, log: Log) -> dict[str, Any]:
    terms, qrels = corpus.terms, corpus.task.qrels
    install.revert(cluster, index)
    qt_index = QueryTime.connect(cluster, index, 1.0)
    qt_shard = QueryTime.connect(cluster, index, 1.0, stats="shard", shard=0)
    plain = {st: _search(cluster, index, terms, search_type=st) for st in (None, DFS)}
    out: dict[str, Any] = {"shards": qt_index.target.shards, "mode": mode.value,
                           "bm25_ndcg10": {"query_then_fetch": _mean(ndcg10(plain[None], qrels)),
                                           "dfs_query_then_fetch": _mean(ndcg10(plain[DFS],
                                                                                qrels))},
                           "by_q": {}}
    for q in qs:
        theirs = _installed(cluster, index, terms, q, mode, (None, DFS))
        mine = {
            "index_stats_dfs": _search(cluster, index, terms, qt_index.queries(terms, q), DFS),
            "index_stats_qtf": _search(cluster, index, terms, qt_index.queries(terms, q)),
            "shard0_stats_qtf": _search(cluster, index, terms, qt_shard.queries(terms, q)),
        }
        row = {
            "installed_qtf_vs_installed_dfs": agreement(theirs[DFS], theirs[None], qrels),
            "query_time_index_stats_dfs_vs_installed_dfs": agreement(
                theirs[DFS], mine["index_stats_dfs"], qrels),
            "query_time_shard0_stats_qtf_vs_installed_qtf": agreement(
                theirs[None], mine["shard0_stats_qtf"], qrels),
            "query_time_index_stats_qtf_vs_installed_qtf": agreement(
                theirs[None], mine["index_stats_qtf"], qrels),
            "query_time_index_stats_qtf_vs_installed_dfs": agreement(
                theirs[DFS], mine["index_stats_qtf"], qrels),
        }
        for name, a in row.items():
            log(f"{corpus.name} {out['shards']} shards q={q:g} {name}: identical "
                f"{a.identical_top10}/{a.queries}, NDCG@10 {a.ndcg_reference:.4f} -> "
                f"{a.ndcg_other:.4f}")
        out["by_q"][f"{q:g}"] = {name: a.as_dict() for name, a in row.items()}
    return out


def _mean(values: Mapping[str, float]) -> float:
    return sum(values.values()) / max(len(values), 1)
