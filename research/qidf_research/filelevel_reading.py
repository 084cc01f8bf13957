"""File-level tasks (issue 32's: commit message -> the whole files it changed) as issue 36's
study reads them: each repository's curve over q on its newer commits, per-query NDCG@10 for
a paired bootstrap against BM25, and the shapes the label-free rule sees (a seeded sample of
the repository's files, the older commits' messages as the unlabeled query sample).

Read from the data issue 32's builder writes under the research cache
(``filetasks/tasks/<repo>/``: ``result.json`` with the curves, ``curves.json`` with per-query
NDCG@10 at every q, ``corpus.jsonl`` the files, ``older-sample.jsonl`` the sample); nothing of
its code is imported, so the two studies do not depend on each other's modules.

Then G3 (predictor.md, issue 36's amendment): a level for long code documents, fitted
leave-one-repository-out on these tasks.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np

from qidf_ctl.stats.source_sample import SOURCE_SAMPLE
from qidf_ctl.stats.text_shape import text_shape
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.readings import MAX_LOSS, MIN_GAIN, recovery_of

TASKS = RESEARCH_CACHE / "filetasks" / "tasks"
LEVELS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RESAMPLES = 10_000
SCORED = "newer"  # the half a decision is scored on; the older half's messages decide


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load(root: Path = TASKS) -> list[dict[str, Any]]:
    """Every file-level task with a curve, its per-query scores and its shapes."""
    out = []
    for d in sorted(root.glob("*/result.json")):
        folder = d.parent
        result = json.loads(d.read_text())
        curves = folder / "curves.json"
        if SCORED not in result.get("curve", {}) or not curves.is_file():
            continue
        docs = [r["text"] for r in _jsonl(folder / "corpus.jsonl")]
        if len(docs) > SOURCE_SAMPLE:
            docs = random.Random(0).sample(docs, SOURCE_SAMPLE)
        sample = [r["text"] for r in _jsonl(folder / "older-sample.jsonl")]
        per_query = json.loads(curves.read_text())["per_query"]
        newer = _jsonl(folder / "halves" / SCORED / "queries.jsonl") \
            if (folder / "halves" / SCORED / "queries.jsonl").is_file() else None
        ids = [q["_id"] for q in newer] if newer else sorted(per_query["baseline"])
        curve = result["curve"][SCORED]
        out.append({
            "key": f"files-{result['key']}", "repo": result["repo"],
            "language": result.get("language"), "documents": result.get("documents"),
            "bm25": curve["baseline"],
            "curve": {float(q): v for q, v in curve.items() if q != "baseline"},
            "per_query": {k: np.array([v.get(i, 0.0) for i in ids])
                          for k, v in per_query.items()},
            "docs": text_shape(docs), "queries": text_shape(sample)})
    return out


def ndcg(task: dict[str, Any], q: float) -> float:
    """NDCG@10 at q (a grid point; between two, the worse neighbour)."""
    if q >= 1.0 - 1e-9:
        return float(task["bm25"])
    qs = sorted(task["curve"])
    if q in task["curve"]:
        return float(task["curve"][q])
    hi = next(x for x in qs if x > q)
    lo = max(x for x in qs if x < q)
    return float(min(task["curve"][lo], task["curve"][hi]))


def oracle(task: dict[str, Any]) -> tuple[float, float]:
    """(q, NDCG@10) of the best point of the grid up to 1 (ties to the q nearest 1)."""
    best = (1.0, float(task["bm25"]))
    for q in sorted(task["curve"], reverse=True):
        if q <= 1.0 and task["curve"][q] > best[1] + 1e-12:
            best = (q, float(task["curve"][q]))
    return best


def p_value(task: dict[str, Any], q: float) -> float | None:
    """Two-sided paired bootstrap p of NDCG@10 at q against BM25 (seed 0, shifted null)."""
    key = _key(task, q)
    if key is None:
        return None
    diff = task["per_query"][key] - task["per_query"]["baseline"]
    if not diff.any():
        return 1.0
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(diff), size=(RESAMPLES, len(diff)))
    means = diff[idx].mean(axis=1) - diff.mean()
    return float((np.abs(means) >= abs(diff.mean())).mean())


def _key(task: dict[str, Any], q: float) -> str | None:
    for k in task["per_query"]:
        if k != "baseline" and math.isclose(float(k), q):
            return k
    return "baseline" if q >= 1.0 - 1e-9 else None


def reading(task: dict[str, Any], q: float) -> dict[str, Any]:
    """What a decision q gives on the task: change, its p, recovery (if the gain counts)."""
    at = ndcg(task, q)
    oq, best = oracle(task)
    change = at - task["bm25"]
    p = p_value(task, q) if abs(change) > 0 else None
    return {"key": task["key"], "q": q, "bm25": task["bm25"], "at": at, "change": change,
            "p": p, "significant_loss": change < 0 and p is not None and p < 0.05,
            "oracle_q": oq, "oracle": best, "oracle_p": p_value(task, oq) if oq < 1 else None,
            "recovery": recovery_of(task["bm25"], best, at)}


def fit_long_level(train: list[dict[str, Any]]) -> float:
    """G3's q_long on ``train``: the best worst recovery over tasks whose oracle gains at
    least MIN_GAIN, none more than MAX_LOSS below BM25; ties (or no gain) to the larger q."""
    best: tuple[float, float] | None = None
    chosen = 1.0
    for q in LEVELS:
        if any(t["bm25"] - ndcg(t, q) > MAX_LOSS for t in train):
            continue
        recs = [r for r in (recovery_of(t["bm25"], oracle(t)[1], ndcg(t, q)) for t in train)
                if r is not None]
        score = (min(recs), float(np.mean(recs))) if recs else (0.0, 0.0)
        if best is None or score >= best:
            best, chosen = score, q
    return chosen


def length_bound(function_words: list[float], file_words: list[float]) -> float | None:
    """G3's L: the geometric middle of the gap between function and file corpora."""
    lo, hi = max(function_words), min(file_words)
    return math.sqrt(lo * hi) if lo < hi else None


def gain_counts(task: dict[str, Any]) -> bool:
    return oracle(task)[1] - task["bm25"] >= MIN_GAIN
