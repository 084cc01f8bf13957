"""NDCG@10 over a grid of q on a live index, and the oracle q.

Each q is installed on the index itself (``install.apply``: close, update, open; well under
a second), so every point is the engine's own ranking, not an offline replica that would
first have to be shown to match it. The index gets back the similarity it had before the
sweep in a ``finally``, whatever fails. With ``query_time`` each q is built into the queries
instead (``qidf_ctl.querytime``, measured to rank identically) and the index is not touched.
Queries are analysed once; each point searches to depth 10 only, which is all NDCG@10 needs.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from qidf_ctl import install, interrupts
from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation.evaluate import analyze_queries
from qidf_ctl.evaluation.files import Qrels, sample_queries
from qidf_ctl.evaluation.grids import parse_values
from qidf_ctl.evaluation.recommend import Recommendation, recommend
from qidf_ctl.evaluation.score import Scored, WithPerQuery, score_run
from qidf_ctl.formula import Q_MAX, Q_MIN, IdfForm
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.similarity import Installed, Mode, QlogParams

DEFAULT_GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
                1.1, 1.2, 1.3, 1.4, 1.5)
MEASURE = "NDCG@10"


def parse_grid(text: str) -> tuple[float, ...]:
    """``0.05,0.1,0.3`` or ``start:stop:step`` (stop included), sorted, duplicates dropped."""
    return parse_values(text, "--grid", Q_MIN, Q_MAX, "q values")


@dataclass
class SweepPoint:
    q: float
    ndcg10: float
    mrr10: float


@dataclass
class SweepResult(WithPerQuery):
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
    recommendation: Recommendation | None = None


@dataclass
class Measured:
    """What a sweep has measured so far, filled in as it goes: what the caller still has
    to show when the sweep fails part way (the index is restored either way)."""

    baseline_similarity: str = ""
    baseline_ndcg10: float | None = None
    points: list[SweepPoint] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"baseline_similarity": self.baseline_similarity,
                "baseline_ndcg10": self.baseline_ndcg10,
                "points": [dataclasses.asdict(p) for p in self.points]}


def oracle(points: list[SweepPoint]) -> SweepPoint:
    """The best point; a tie goes to the q closest to 1 (the smallest change from BM25)."""
    return max(points, key=lambda p: (round(p.ndcg10, 12), -abs(p.q - 1.0)))


def _restore(cluster: Cluster, index: str, before: Installed) -> None:
    if before.kind == "qlog" and before.params is not None:
        install.apply(cluster, index, before.params, mode=before.mode or Mode.SCRIPT)
    else:
        install.revert(cluster, index)


@dataclass
class SweptIndex:
    """The index a settings sweep changes, its analysed queries and its own ranking."""

    index: str
    field: str
    terms: Mapping[str, Any]
    baseline_similarity: str
    baseline: Scored


@contextmanager
def settings_sweep(cluster: Cluster, index: str, field_name: str | None,
                   queries_: dict[str, str], qrels: Qrels, terms: Mapping[str, Any] | None,
                   progress: Progress, bar: BarFactory) -> Iterator[SweptIndex]:
    """Measure the index's own similarity, hand the index to the caller to install settings
    on, and give it its own similarity back afterwards, whatever fails."""
    state = install.read_state(cluster, index)
    state.description.require_open("sweep it")
    resolved = state.index
    fname = state.description.text_field(field_name)
    before = state.installed
    if terms is None:
        terms = analyze_queries(cluster, resolved, fname, queries_, bar)
    try:
        install.revert(cluster, resolved)
        name = install.show(cluster, resolved)["similarity"]
        progress(f"searching with {name}")
        base = score_run(runs.search_run(cluster, resolved, fname, terms, k=10), qrels)
        yield SweptIndex(resolved, fname, terms, name, base)
    finally:
        progress(f"restoring {before.describe()}")
        with interrupts.cleanup():  # runs after a signal, and a new one must not cut it short
            _restore(cluster, resolved, before)


def _points(grid: tuple[float, ...], qrels: Qrels, run_at: Callable[[float], runs.Run],
            per_query: dict[str, dict[str, float]], progress: Progress,
            measured: Measured) -> list[SweepPoint]:
    points = measured.points
    for q in grid:
        progress(f"q = {q:g}: searching")
        scored = score_run(run_at(q), qrels)
        per_query[f"{q:g}"] = scored.of(MEASURE)
        points.append(SweepPoint(q, scored.mean[MEASURE], scored.mean["MRR@10"]))
    return list(points)


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
    query_time: bool = False,
    reference: tuple[float, str] | None = None,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
    measured: Measured | None = None,
) -> SweepResult:
    """NDCG@10 of the index's own similarity and of q-log at every q of ``grid``.

    ``reference``: (q, where it came from), e.g. what ``--q auto`` chooses; it joins the grid
    and the result recommends the best-mean q unless a paired bootstrap leaves doubt that it
    beats the reference (``recommend``).

    ``query_time``: every q is built into the queries (``qidf_ctl.querytime``) and the index
    is never changed: no close per q, safe on a production index, search privileges only.

    ``measured``: filled in point by point, for a caller that reports a failure part way.
    """
    started = time.monotonic()
    measured = measured if measured is not None else Measured()
    queries_, qrels = sample_queries(queries_, qrels, None)
    if reference is not None:
        grid = tuple(sorted({*grid, reference[0]}))
    if query_time:
        return _recommended(_sweep_query_time(cluster, index, queries_, qrels, grid,
                                              field_name, terms, progress, bar, started,
                                              measured), reference)
    with settings_sweep(cluster, index, field_name, queries_, qrels, terms, progress,
                        bar) as swept:
        per_query = {"baseline": swept.baseline.of(MEASURE)}
        measured.baseline_similarity = swept.baseline_similarity
        measured.baseline_ndcg10 = swept.baseline.mean[MEASURE]

        def installed_run(q: float) -> runs.Run:
            install.apply(cluster, swept.index, QlogParams(q), mode=mode)
            return runs.search_run(cluster, swept.index, swept.field, swept.terms, k=10)

        points = _points(grid, qrels, installed_run, per_query, progress, measured)
    best = oracle(points)
    return _recommended(SweepResult(
        swept.index, swept.field, len(qrels), swept.baseline_similarity,
        swept.baseline.mean[MEASURE], points, best.q, best.ndcg10, time.monotonic() - started,
        per_query), reference)


def _recommended(result: SweepResult, reference: tuple[float, str] | None) -> SweepResult:
    if reference is not None:
        result.recommendation = recommend(
            {p.q: result.per_query[f"{p.q:g}"] for p in result.points}, *reference)
    return result


def _sweep_query_time(cluster: Cluster, index: str, queries_: dict[str, str], qrels: Qrels,
                      grid: tuple[float, ...], field_name: str | None,
                      terms: Mapping[str, Any] | None, progress: Progress, bar: BarFactory,
                      started: float, measured: Measured) -> SweepResult:
    from qidf_ctl.querytime import QueryTime  # it builds on this package

    qt = QueryTime.connect(cluster, index, 1.0, field_name)
    resolved, fname = qt.target.index, qt.target.field
    if terms is None:
        terms = analyze_queries(cluster, resolved, fname, queries_, bar, qt.tokens)
    progress(f"searching with {qt.target.similarity}")
    plain = runs.search_run(cluster, resolved, fname, terms, k=10)
    base = score_run(plain, qrels)
    per_query = {"baseline": base.of(MEASURE)}
    measured.baseline_similarity = qt.target.similarity
    measured.baseline_ndcg10 = base.mean[MEASURE]

    def run_at(q: float) -> runs.Run:
        if q == 1.0 and qt.form is IdfForm.LUCENE:
            return plain  # at q = 1 the query is the plain BM25 query, bit for bit
        return runs.search_run(cluster, resolved, fname, terms, k=10,
                               queries=qt.queries(terms, q))

    points = _points(grid, qrels, run_at, per_query, progress, measured)
    best = oracle(points)
    return SweepResult(resolved, fname, len(qrels), qt.target.similarity, base.mean[MEASURE],
                       points, best.q, best.ndcg10, time.monotonic() - started, per_query)
