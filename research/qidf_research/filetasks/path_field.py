"""The path as the searched text: the same commit messages against ``path_text`` (the path
analysed by the same ``standard`` analyzer as the content), reported apart from the main
task. Agents search file names too; whether q-log helps or hurts there is a question of its
own, since a path holds a handful of tokens and most of them are shared by many files.

Measured on NDCG@10 only: the curves over the grid (the product's query-time sweep), the
judged decisions on the older half (the sweep's guard from BM25 and from ``--q auto``), and
``apply --q auto --dry-run --field path_text`` without and with the 1,000-message sample,
each on the newer half against BM25 with the paired bootstrap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES, paired_bootstrap
from qidf_ctl.evaluation.sweep import SweepPoint, oracle
from qidf_research.filetasks import curves as curves_lib
from qidf_research.filetasks import decisions, index
from qidf_research.filetasks.build import Built

FIELD = index.PATH_TEXT_FIELD
Log = Callable[[str], None]


def _curves(cluster: Cluster, built: Built, terms: Mapping[str, Counter[str]], fp: str,
            log: Log) -> curves_lib.Curves:
    path = built.folder.root / f"curves-{FIELD}.json"
    if path.exists():
        cached = curves_lib.Curves.load(path)
        if cached.extra.get("fingerprint") == fp:
            return cached
    log(f"{built.source.key}: sweeping {FIELD}")
    result = curves_lib.sweep(cluster, built.index, FIELD, built.queries, built.qrels, terms)
    result.extra = {"fingerprint": fp}
    result.save(path)
    return result


def measure(cluster: Cluster, url: str, built: Built, terms: Mapping[str, Counter[str]],
            fp: str, log: Log) -> dict[str, Any]:
    """``terms``: the messages' tokens under the content field's analyzer, which is the path
    field's too (both ``standard``)."""
    curves = _curves(cluster, built, terms, fp, log)
    free = decisions.label_free(url, built.index, FIELD, None)
    free_sample = decisions.label_free(url, built.index, FIELD, built.folder.sample)
    older, newer = built.split.older, built.split.newer
    decided = {"label_free": free, "label_free_sample": free_sample,
               "judged": decisions.guarded(curves, older, free_sample["q"], "--q auto"),
               "judged_from_bm25": decisions.guarded(curves, older, 1.0, "BM25")}
    if curves_lib.extend(curves, cluster, built.index, built.queries, built.qrels, terms,
                         decisions.distinct_qs(decided)):
        curves.save(built.folder.root / f"curves-{FIELD}.json")
    best = oracle([SweepPoint(q, curves.mean(curves_lib.label(q), newer), 0.0)
                   for q in curves.grid])
    bm25 = {q: curves.at(1.0)[q] for q in newer}
    points: dict[str, Any] = {}
    for q in sorted({1.0, best.q, *decisions.distinct_qs(decided)}):
        values = {i: curves.at(q)[i] for i in newer}
        b = paired_bootstrap(values, bm25, resamples=DEFAULT_RESAMPLES, seed=0)
        points[curves_lib.label(q)] = {"q": q, "NDCG@10": {
            "mean": b.run_mean, "delta": b.delta, "p": b.p_value if q != 1.0 else None}}
    return {"field": FIELD, "oracle": {"newer": {"q": best.q, "ndcg10": best.ndcg10}},
            "decisions": decided, "newer": points, "seconds": curves.seconds,
            "curve": {h: {k: curves.mean(k, ids) for k in curves.per_query}
                      for h, ids in (("older", older), ("newer", newer))}}
