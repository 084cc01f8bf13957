"""Tuning q, k1 and b together on a live index, and what the best setting is worth.

BM25's k1 and b are the first thing a user who knows the engine tunes; q-log's q moves the
IDF. ``joint_sweep`` installs every (q, k1, b) of a grid on the index in turn (as ``sweep``
does for q alone), and reports the best one with the paired bootstrap interval of its gain
over the index's own similarity and over the best single family, the better of q-log at
the default k1 and b and BM25 (q = 1) with k1 and b tuned. The grid always holds q = 1 and
the defaults k1 = 1.2, b = 0.75, so both single families are inside it and the joint best
is never below either on the queries it was chosen on. Chosen and measured on the same
queries, the intervals are optimistic: check the setting on other queries (``qidf eval``).
"""

from __future__ import annotations

import dataclasses
import itertools
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES, DeltaInterval, paired_interval
from qidf_ctl.evaluation.files import Qrels, sample_queries
from qidf_ctl.evaluation.grids import check_settings, parse_values
from qidf_ctl.evaluation.score import WithPerQuery, score_run
from qidf_ctl.evaluation.sweep import MEASURE, settings_sweep
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.similarity import Mode, QlogParams

DEFAULT_K1, DEFAULT_B = 1.2, 0.75
K1_MAX = 10.0


def parse_k1_grid(text: str) -> tuple[float, ...]:
    return parse_values(text, "--k1-grid", 0.0, K1_MAX, "k1 values")


def parse_b_grid(text: str) -> tuple[float, ...]:
    return parse_values(text, "--b-grid", 0.0, 1.0, "b values")


def joint_grid(q_grid: tuple[float, ...], k1_grid: tuple[float, ...],
               b_grid: tuple[float, ...]) -> list[QlogParams]:
    """Every (q, k1, b), with q = 1 and the default k1 and b added: BM25 with tuned k1 and b
    (q = 1) and q-log at the defaults are then both inside the grid."""
    qs = sorted({*q_grid, 1.0})
    k1s = sorted({*k1_grid, DEFAULT_K1})
    bs = sorted({*b_grid, DEFAULT_B})
    check_settings(tuple(qs), tuple(k1s), tuple(bs))  # before any work: bounded
    return [QlogParams(q, k1, b) for q, k1, b in itertools.product(qs, k1s, bs)]


@dataclass
class JointPoint:
    q: float
    k1: float
    b: float
    ndcg10: float
    mrr10: float

    @property
    def label(self) -> str:
        return f"q={self.q:g} k1={self.k1:g} b={self.b:g}"


def best_point(points: list[JointPoint]) -> JointPoint:
    """The best NDCG@10; a tie goes to the setting nearest BM25's defaults (the smallest
    change from what the index had)."""
    return max(points, key=lambda p: (round(p.ndcg10, 12), -abs(p.q - 1.0)
                                      - abs(p.k1 - DEFAULT_K1) / DEFAULT_K1
                                      - abs(p.b - DEFAULT_B)))


@dataclass
class JointResult(WithPerQuery):
    """The grid, the best joint setting and the two single families inside the grid."""

    index: str
    field: str
    queries: int
    baseline_similarity: str
    baseline_ndcg10: float
    points: list[JointPoint]
    best: JointPoint
    best_q_only: JointPoint
    best_bm25_only: JointPoint
    best_single: str
    vs_baseline: DeltaInterval
    vs_best_single: DeltaInterval
    apply_command: str
    seconds: float
    per_query: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict, repr=False)


def apply_command(index: str, point: JointPoint, mode: Mode, field: str | None) -> str:
    """The ``qidf apply`` line that installs ``point`` (cluster options left to the user)."""
    line = (f"qidf apply {shlex.quote(index)} --q {point.q:g} --k1 {point.k1:g} "
            f"--b {point.b:g}")
    if mode is Mode.PLUGIN:
        line += " --mode plugin"
    if field:
        line += f" --field {shlex.quote(field)}"
    return line


def joint_sweep(
    cluster: Cluster,
    index: str,
    queries_: dict[str, str],
    qrels: Qrels,
    *,
    q_grid: tuple[float, ...],
    k1_grid: tuple[float, ...],
    b_grid: tuple[float, ...],
    field_name: str | None = None,
    mode: Mode = Mode.SCRIPT,
    terms: Mapping[str, Any] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
) -> JointResult:
    """NDCG@10 of the index's own similarity and of q-log at every (q, k1, b) of the grid;
    the index gets its own similarity back at the end, whatever fails."""
    started = time.monotonic()
    queries_, qrels = sample_queries(queries_, qrels, None)
    grid = joint_grid(q_grid, k1_grid, b_grid)
    points: list[JointPoint] = []
    with settings_sweep(cluster, index, field_name, queries_, qrels, terms, progress,
                        bar) as swept:
        per_query = {"baseline": swept.baseline.of(MEASURE)}
        with bar(f"{len(grid)} settings", len(grid)) as advance:
            for params in grid:
                progress(f"{params.describe()}: installing and searching")
                install.apply(cluster, swept.index, params, mode=mode)
                scored = score_run(runs.search_run(cluster, swept.index, swept.field,
                                                   swept.terms, k=10), qrels)
                point = JointPoint(params.q, params.k1, params.b, scored.mean[MEASURE],
                                   scored.mean["MRR@10"])
                per_query[point.label] = scored.of(MEASURE)
                points.append(point)
                advance(1)
    best = best_point(points)
    q_only = best_point([p for p in points if (p.k1, p.b) == (DEFAULT_K1, DEFAULT_B)])
    bm25_only = best_point([p for p in points if p.q == 1.0])
    single = best_point([q_only, bm25_only])
    single_name = "q-log (k1, b at defaults)" if single is q_only else "BM25 (k1, b tuned)"
    return JointResult(
        swept.index, swept.field, len(qrels), swept.baseline_similarity,
        swept.baseline.mean[MEASURE], points, best, q_only,
        bm25_only, single_name,
        paired_interval(per_query[best.label], per_query["baseline"], resamples=resamples,
                        seed=seed),
        paired_interval(per_query[best.label], per_query[single.label], resamples=resamples,
                        seed=seed),
        apply_command(swept.index, best, mode, field_name), time.monotonic() - started,
        per_query)
