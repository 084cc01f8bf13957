"""The sample-move rules (V3, V5) and how the query-performance studies read another sample's
runs: shared by ``predictor_qpp`` and ``predictor_qpp_halves``, which import this and never
each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from qidf_research import content_fitting as pc
from qidf_research.paths import REPO
from qidf_research.qpp_criteria import ndcg_curve, runs_of, significant_move, unique_top1
from qidf_research.readings import ndcg_at, recovery

RESULTS = REPO / "benchmarks" / "retrieval" / "results.json"
SPREAD = "Q1 spread"


def sample_move(p: pc.Params, r: pc.Row, seed: int | str = 0,
                subset: list[int] | None = None, code_documents: bool = True) -> float:
    """F1's level unless a candidate's spread beats it beyond noise (sign test): on code
    documents any q of the grid (unless ``code_documents`` is False: F1's level stays), on
    text searched with code only a lower q. ``subset``: those queries of the sample only."""
    level, _ = pc.decide(p, r, True)
    data = runs_of(r["key"], seed)
    code = r["kind"] == "code"
    if level == 1.0 or data is None or (code and not code_documents):
        return level
    ids, _, meta = data
    if subset is not None:
        ids = ids[:, subset]
    unique = {q: unique_top1(ids[g]) for g, q in enumerate(meta["grid"])}
    return significant_move(unique, level, [q for q in meta["grid"] if q != level and (
        code or q < level)])


Decider = Callable[[pc.Params, pc.Row, int], float]


def language_means(recs: list[tuple[str, float]]) -> dict[str, float]:
    """Mean recovery per language from (language, recovery) pairs; the study's figure is the
    mean of these means, every language weighted alike."""
    grouped: dict[str, list[float]] = {}
    for lang, rec in recs:
        grouped.setdefault(lang, []).append(rec)
    return {lang: float(np.mean(v)) for lang, v in grouped.items()}


def mean_of(per_language: dict[str, float]) -> float | None:
    return float(np.mean(list(per_language.values()))) if per_language else None


def measured_row(r: pc.Row, seed: int | str, without: frozenset[str] = frozenset()
                 ) -> pc.Row:
    """``r`` with its curve, BM25 and oracle (over the grid) read from the stored runs of
    another query sample instead of the benchmark's sweep."""
    ndcg = ndcg_curve(r["key"], seed, without)
    qs = sorted(ndcg)
    return {**r, "bm25": ndcg[1.0], "oracle": max(ndcg.values()), "oracle_q": max(
        qs, key=lambda q: ndcg[q]), "qs": np.array(qs), "ys": np.array([ndcg[q] for q in qs])}


def go_at_scale(rows: list[pc.Row], p: pc.Params, rule: Decider) -> dict[str, Any]:
    """Test (b): ``rule`` on Go's scaling subsets, read off their sweep curves."""
    out = {}
    for r in rows:
        if r["language"] == "go" and not r["main"] and r["kind"] != "identifier":
            q, f1 = rule(p, r, 0), pc.decide(p, r, True)[0]
            out[r["key"]] = {"q": q, "f1_q": f1, "delta": ndcg_at(r, q) - r["bm25"],
                             "recovery": recovery(r, q), "f1_recovery": recovery(r, f1)}
    return out
