"""NDCG@10 over a grid of q on a live index, and the oracle q.

Each q is installed on the index itself (``install.apply``: close, update, open; well under
a second), so every point is the engine's own ranking, not an offline replica that would
first have to be shown to match it. The index gets back the similarity it had before the
sweep in a ``finally``, whatever fails. Queries are analysed once; each point searches to
depth 10 only, which is all NDCG@10 needs.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import install, runs
from .cluster import Cluster
from .errors import UsageError
from .evaluate import Qrels, analyze_queries, sample_queries, score_run, text_field
from .progress import BarFactory, Progress, no_bar, quiet
from .qlog import Q_MAX, Q_MIN
from .similarity import Installed, Mode, QlogParams, parse

DEFAULT_GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
                1.1, 1.2, 1.3, 1.4, 1.5)
MEASURE = "NDCG@10"


def parse_grid(text: str) -> tuple[float, ...]:
    """``0.05,0.1,0.3`` or ``start:stop:step`` (stop included), sorted, duplicates dropped."""
    text = text.strip()
    try:
        if ":" in text:
            start, stop, step = (float(x) for x in text.split(":"))
            if step <= 0:
                raise UsageError(f"--grid step must be > 0, got {step:g}")
            n = math.floor((stop - start) / step + 1e-9) + 1
            values = [round(start + i * step, 10) for i in range(max(n, 0))]
        else:
            values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--grid must be q values like 0.05,0.1,0.3 or start:stop:step, "
                         f"got {text!r}") from None
    bad = [v for v in values if not (math.isfinite(v) and Q_MIN <= v <= Q_MAX)]
    if bad or not values:
        raise UsageError(f"--grid needs q values in [{Q_MIN:g}, {Q_MAX:g}], got {text!r}")
    return tuple(sorted(set(values)))


@dataclass
class SweepPoint:
    q: float
    ndcg10: float
    mrr10: float


@dataclass
class SweepResult:
    """The curve, the index's own similarity as the baseline, and the best q on the grid."""

    index: str
    field: str
    queries: int
    baseline_similarity: str
    baseline_ndcg10: float
    points: list[SweepPoint]
    oracle_q: float
    oracle_ndcg10: float
    seconds: float
    per_query: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict, repr=False)

    def as_dict(self, per_query: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not per_query:
            data.pop("per_query")
        return data


def oracle(points: list[SweepPoint]) -> SweepPoint:
    """The best point; a tie goes to the q closest to 1 (the smallest change from BM25)."""
    return max(points, key=lambda p: (round(p.ndcg10, 12), -abs(p.q - 1.0)))


def _restore(cluster: Cluster, index: str, before: Installed) -> None:
    if before.kind == "qlog" and before.params is not None:
        install.apply(cluster, index, before.params, mode=before.mode or Mode.SCRIPT)
    else:
        install.revert(cluster, index)


def sweep(
    cluster: Cluster,
    index: str,
    queries_: dict[str, str],
    qrels: Qrels,
    *,
    grid: tuple[float, ...] = DEFAULT_GRID,
    field_name: str | None = None,
    mode: Mode = Mode.SCRIPT,
    terms: Mapping[str, Any] | None = None,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
) -> SweepResult:
    """NDCG@10 of the index's own similarity and of q-log at every q of ``grid``."""
    started = time.monotonic()
    queries_, qrels = sample_queries(queries_, qrels, None)
    state = install.read_state(cluster, index)
    resolved = state.index
    fname = text_field(cluster, resolved, field_name)
    before = parse(state.similarity or None)
    if terms is None:
        terms = analyze_queries(cluster, resolved, fname, queries_, bar)
    per_query: dict[str, dict[str, float]] = {}
    points: list[SweepPoint] = []
    try:
        install.revert(cluster, resolved)
        baseline_name = install.show(cluster, resolved)["similarity"]
        progress(f"searching with {baseline_name}")
        base = score_run(runs.search_run(cluster, resolved, fname, terms, k=10), qrels)
        per_query["baseline"] = {q: v[MEASURE] for q, v in base.per_query.items()}
        for q in grid:
            progress(f"q = {q:g}: installing and searching")
            install.apply(cluster, resolved, QlogParams(q), mode=mode)
            scored = score_run(runs.search_run(cluster, resolved, fname, terms, k=10), qrels)
            per_query[f"{q:g}"] = {qid: v[MEASURE] for qid, v in scored.per_query.items()}
            points.append(SweepPoint(q, scored.mean[MEASURE], scored.mean["MRR@10"]))
    finally:
        progress(f"restoring {before.describe()}")
        _restore(cluster, resolved, before)
    best = oracle(points)
    return SweepResult(resolved, fname, len(qrels), baseline_name, base.mean[MEASURE], points,
                       best.q, best.ndcg10, time.monotonic() - started, per_query)


def plot(result: SweepResult, path: str | Path, title: str | None = None) -> Path:
    """The NDCG@10 curve over q as a PNG, with the baseline and the oracle marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qs = [p.q for p in result.points]
    ys = [p.ndcg10 for p in result.points]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.plot(qs, ys, marker="o", ms=3, label="q-log BM25")
    ax.axhline(result.baseline_ndcg10, color="grey", ls="--",
               label=f"baseline ({result.baseline_ndcg10:.4f})")
    ax.scatter([result.oracle_q], [result.oracle_ndcg10], color="red", zorder=3,
               label=f"oracle q = {result.oracle_q:g} ({result.oracle_ndcg10:.4f})")
    ax.set_xlabel("q")
    ax.set_ylabel("NDCG@10")
    ax.set_title(title or f"{result.index}: {result.queries} queries")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
