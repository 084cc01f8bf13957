"""Label-free query-performance criteria of a query sample's own rankings, read at every q
of a grid (predictor.md, "Choosing q from the query sample"), and the stored runs they are
read from (``qpp_runs``). The judgements stored beside the runs are read only by
``ndcg_curve``, to score a choice afterwards."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from qidf_ctl.evaluation.recommend import guarded_choice
from qidf_ctl.evaluation.score import score_run
from qidf_research.paths import CACHE

CORROBORATION_DEPTH = 10
HUB_SHARE = 0.01

Runs = tuple[np.ndarray, np.ndarray, dict[str, Any]]


YARDSTICK = "q5000"  # the 5,000-query sample (qpp_runs --seed 3 --queries 5000 --depth 10)


@cache
def runs_of(key: str, seed: int | str = 0) -> Runs | None:
    """The stored runs of one task: the benchmark's sample (0), another seeded sample of
    1,000 queries (1, 2) or a named folder (``YARDSTICK``)."""
    folder = seed if isinstance(seed, str) else (f"seed{seed}" if seed else "")
    path = CACHE / "qpp" / folder / f"{key}.npz"
    if not path.is_file():
        return None
    z = np.load(path)
    return z["ids"], z["scores"], json.loads(bytes(z["meta"]).decode())


# --- the criteria: one number per q, from ids and scores only -----------------------------


def unique_top1(ids: np.ndarray) -> np.ndarray:
    """Per query: its top-1 is the top-1 of no other query (False without hits)."""
    top = ids[:, 0]
    hit = top >= 0
    counts = np.bincount(top[hit], minlength=int(top.max()) + 1 if hit.any() else 1)
    out = np.zeros(len(top), dtype=bool)
    out[hit] = counts[top[hit]] == 1
    return out


def spread(ids: np.ndarray, _scores: np.ndarray, _bm25_ids: np.ndarray, _n: int) -> float:
    return float(unique_top1(ids).mean())


def corroborated_spread(ids: np.ndarray, _scores: np.ndarray, bm25_ids: np.ndarray,
                        _n: int) -> float:
    top = ids[:, :1]
    backed = (bm25_ids[:, :CORROBORATION_DEPTH] == top).any(axis=1) & (ids[:, 0] >= 0)
    return float((unique_top1(ids) & backed).mean())


def score_spread(ids: np.ndarray, scores: np.ndarray, _bm25_ids: np.ndarray,
                 _n: int) -> float:
    cvs = []
    for row_ids, row in zip(ids, scores, strict=True):
        s = row[row_ids >= 0].astype(np.float64)
        if len(s) >= 2 and s.mean() > 0:
            cvs.append(s.std() / s.mean())
    return float(np.mean(cvs)) if cvs else 0.0


def hubness(ids: np.ndarray, _scores: np.ndarray, _bm25_ids: np.ndarray, n: int) -> float:
    top = ids[:, :10]
    top = top[top >= 0]
    if not len(top):
        return 0.0
    counts = np.sort(np.bincount(top))[::-1]
    hubs = max(1, math.ceil(HUB_SHARE * n))
    return float(counts[:hubs].sum() / len(top))


Criterion = Callable[[np.ndarray, np.ndarray, np.ndarray, int], float]
CRITERIA: dict[str, tuple[Criterion, bool]] = {  # name -> (function, higher is better)
    "Q1 spread": (spread, True),
    "Q2 corroborated spread": (corroborated_spread, True),
    "Q3 score spread": (score_spread, True),
    "Q4 hubness": (hubness, False),
}
RELATIVE = {"Q3 score spread", "Q4 hubness"}


@cache
def curve(key: str, name: str, seed: int = 0, subset: tuple[int, ...] | None = None
          ) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The criterion at every q of the grid, on the task's sample (``subset``: on those
    queries of it only)."""
    data = runs_of(key, seed)
    if data is None:
        return None
    ids, scores, meta = data
    if subset is not None:
        ids, scores = ids[:, list(subset)], scores[:, list(subset)]
    fn, _ = CRITERIA[name]
    bm25 = ids[meta["grid"].index(1.0)]
    values = tuple(fn(ids[g], scores[g], bm25, meta["documents"])
                   for g in range(len(meta["grid"])))
    return tuple(meta["grid"]), values


def choose(key: str, name: str, tau: float, seed: int = 0,
           subset: tuple[int, ...] | None = None) -> float | None:
    """The largest q whose criterion is within ``tau`` of the best (None: no runs)."""
    c = curve(key, name, seed, subset)
    if c is None:
        return None
    grid, values = c
    higher = CRITERIA[name][1]
    best = max(values) if higher else min(values)
    slack = tau * abs(best) if name in RELATIVE else tau
    ok = [q for q, v in zip(grid, values, strict=True)
          if (v >= best - slack if higher else v <= best + slack)]
    return max(ok)


def significant_move(unique: dict[float, np.ndarray], level: float,
                     candidates: list[float]) -> float:
    """V3's test: of ``candidates``, the q whose unique-top-1 indicators beat ``level``'s by
    the sign test with the highest spread, else ``level`` (``qidf sweep``'s guarded choice,
    with a query's unique top-1 in place of its NDCG@10)."""
    return guarded_choice({q: unique[q].tolist() for q in (level, *candidates)}, level)


@cache
def _scored(key: str, seed: int | str, kept: tuple[int, ...]) -> dict[float, Any]:
    """The benchmark's ``score_run`` of the stored runs at every q of the grid, on the
    query positions ``kept`` (cached: the studies score the same halves and samples for
    several rules)."""
    data = runs_of(key, seed)
    assert data is not None
    ids, scores, meta = data
    qids = [meta["qids"][i] for i in kept]
    qrels = {qid: {str(d): 1 for d in meta["qrels"][qid]} for qid in qids}
    return {q: score_run({qid: [(str(d), float(s)) for d, s in zip(
        ids[g, i, :10], scores[g, i, :10], strict=True) if d >= 0]
        for i, qid in zip(kept, qids, strict=True)}, qrels)
        for g, q in enumerate(meta["grid"])}


def ndcg_curve(key: str, seed: int | str, without: frozenset[str] = frozenset()
               ) -> dict[float, float]:
    """NDCG@10 at every q of the grid, scored by the benchmark's own ``score_run`` on the
    stored runs and judgements (so equal to the sweep's where both exist); ``without``:
    query ids left out."""
    data = runs_of(key, seed)
    assert data is not None
    kept = tuple(i for i, qid in enumerate(data[2]["qids"]) if qid not in without)
    return {q: float(s.mean["NDCG@10"]) for q, s in _scored(key, seed, kept).items()}


def ndcg_per_query(key: str, seed: int | str, kept: list[int]) -> dict[float, np.ndarray]:
    """Per query of ``kept`` (positions in the sample), NDCG@10 at every q of the grid."""
    data = runs_of(key, seed)
    assert data is not None
    qids = [data[2]["qids"][i] for i in kept]
    return {q: np.array([s.of("NDCG@10").get(qid, 0.0) for qid in qids])
            for q, s in _scored(key, seed, tuple(kept)).items()}
