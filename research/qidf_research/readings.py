"""How the predictor studies read the benchmark: a task's sweep curve, NDCG@10 at a q, recovery
of the oracle's gain, and the summaries every table reports (mean recovery, gain-weighted
recovery, worst task). Defined once here; every study and report imports them.

- recovery of one task = (NDCG@10 at q - BM25) / (oracle - BM25); undefined (None) where the
  oracle gains less than MIN_GAIN (nothing to recover);
- gain-weighted recovery of a set of tasks = the share of their summed oracle gain captured,
  sum(NDCG@10 at q - BM25) / sum(oracle - BM25), over the tasks whose recovery is defined: a
  task with 0.26 NDCG@10 to gain counts for more than one with 0.015, as users feel it;
- worst task = the smallest recovery of the set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

MAX_LOSS = 0.005
MIN_GAIN = 0.005  # below this the oracle gain is noise: recovery is undefined there
LANGUAGES = ("go", "java", "ruby", "python", "php", "javascript", "rust", "typescript",
             "kotlin", "scala", "c")
SMALL_PROSE = ("manpages", "gitman", "perlpod", "pydoc", "pgdoc", "kerneldoc")


def recovery_of(bm25: float, oracle: float, at: float) -> float | None:
    """The share of the oracle's gain over BM25 that NDCG@10 ``at`` the chosen q captures."""
    gain = oracle - bm25
    if gain < MIN_GAIN:
        return None
    return (at - bm25) / gain


def gain_weighted(points: Iterable[tuple[float, float, float]]) -> float | None:
    """Summed gain captured over summed oracle gain, of (bm25, oracle, at) per task, over the
    tasks whose recovery is defined."""
    kept = [(b, o, a) for b, o, a in points if o - b >= MIN_GAIN]
    if not kept:
        return None
    return sum(a - b for b, _, a in kept) / sum(o - b for b, o, _ in kept)


def worst(recoveries: Iterable[float | None]) -> float | None:
    """The smallest defined recovery."""
    defined = [r for r in recoveries if r is not None]
    return min(defined) if defined else None


def summarize(points: Iterable[tuple[float, float, float]]) -> dict[str, float | None]:
    """Mean recovery, gain-weighted recovery and the worst task of (bm25, oracle, at) per task."""
    pts = list(points)
    recs = [r for r in (recovery_of(*p) for p in pts) if r is not None]
    return {"mean": float(np.mean(recs)) if recs else None, "gain_weighted": gain_weighted(pts),
            "worst": worst(recs), "tasks": len(recs)}


def with_types_per_token(st: dict[str, float]) -> dict[str, float]:
    """h_types_df1 (df = 1 terms per token) is exact from the other statistics when a
    result does not carry it; added in place."""
    if "h_types_df1" not in st:
        st["h_types_df1"] = st["h_vocab"] * st["vocabulary"] / st["tokens"]
    return st


def corpus_rows(results: dict[str, Any], keys: list[str]) -> list[dict[str, Any]]:
    rows = []
    for key in keys:
        t = results["tasks"].get(key)
        if t is None:
            continue
        with_types_per_token(t["stats"])
        curve = sorted((p["q"], p["ndcg10"]) for p in t["sweep"]["points"])
        rows.append({"key": key, "language": key.split("-")[0], "stats": t["stats"],
                     "bm25": t["sweep"]["baseline_ndcg10"],
                     "oracle": t["sweep"]["oracle_ndcg10"], "oracle_q": t["sweep"]["oracle_q"],
                     "qs": np.array([q for q, _ in curve]),
                     "ys": np.array([y for _, y in curve])})
    return rows


def ndcg_at(row: dict[str, Any], q: float) -> float:
    """NDCG@10 at q off the sweep curve; between two grid points, the worse of the two (the
    curve can be steep there: linear interpolation once hid a 0.007 loss as 0.004)."""
    qs, ys = row["qs"], row["ys"]
    q = float(min(qs[-1], max(qs[0], q)))
    i = int(np.searchsorted(qs, q - 1e-9))
    if abs(qs[i] - q) < 1e-9:
        return float(ys[i])
    return float(min(ys[i - 1], ys[i]))


def recovery(row: dict[str, Any], q: float) -> float | None:
    """``recovery_of`` a curve row at q (read with ``ndcg_at``)."""
    return recovery_of(row["bm25"], row["oracle"], ndcg_at(row, q))


def is_prose(key: str) -> bool:
    """The natural-language controls: man pages, the corpora of sources/prose.py, and the
    Debian corpora of sources/debian_prose.py at every size (``debdesc-prose-10k``)."""
    return re.search(r"-prose(-\d+k)?$", key) is not None


def main_tasks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["key"].split("-", 1)[1] in ("code2doc", "doc2code")]


def splits_identifiers(results: dict[str, Any], key: str) -> bool:
    return results["tasks"][key].get("analyzer", "standard") != "standard"


def training_key(key: str) -> bool:
    """The tasks measured before the large-prose study: every language's, and the six small
    prose controls (the Debian corpora and the mixed index are held out)."""
    language = "go" if key.startswith("go-") else key.split("-")[0]
    return language in LANGUAGES + SMALL_PROSE
