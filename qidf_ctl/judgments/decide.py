"""q from the user's own judgments: ``apply --q auto --judgments`` and ``predict --judgments``.

One decision path, the one ``qidf sweep`` recommends through: NDCG@10 of the older split's
queries at every q of the grid, then the bootstrap guard (``evaluation.recommend``) keeps the
reference q, the label-free prediction ``--q auto`` would make without judgments, unless the
best-mean q beats it in at least 90% of resampled query sets. The newer split, which had no
say in the choice, then reports NDCG@10 at the chosen q against BM25 with a paired bootstrap.

Every q is built into the queries (``qidf_ctl.querytime``: boosted term clauses, measured to
rank as the installed similarity does), so deciding changes nothing on the index and costs
searches only: one analysis per query, one statistics read for all their terms, and a search
per query and q. On an index that already has q-log installed the boosts are rescaled from
its IDF instead of BM25's, so a later decision (GitOps' ``plan``) needs no revert first.
At most ``MAX_QUERIES`` queries of each split are used (a seeded sample; the decision
records how many of how many): 500 judged queries already separate q well beyond the guard's
noise (benchmarks/judgments/decision-1m.md), and each one costs a search per q.

The grid is searched coarse to fine: ``COARSE`` first, then the neighbours on sweep's grid
(``DEFAULT_GRID``) of the best-mean q so far, until the best has both neighbours measured.
The NDCG@10 curve over q is smooth and single-peaked on every corpus measured, so the best q
is the one the whole grid would give, for about half the searches.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError, ConflictError, UsageError
from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation.bootstrap import paired_bootstrap
from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.evaluation.recommend import DOUBT, RESAMPLES, recommend
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.evaluation.sweep import DEFAULT_GRID, MEASURE
from qidf_ctl.formula import IdfForm, idf
from qidf_ctl.judgments.folder import Judgments
from qidf_ctl.judgments.split import NEWER, OLDER
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.querytime import QueryTime, Target, inspect
from qidf_ctl.querytime.statistics import TermStats
from qidf_ctl.similarity import QlogParams

PREDICTOR = "judgments"
MAX_QUERIES = 500
COARSE = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.2)
ANALYZE_WORKERS = 4
BM25 = 1.0
SUGGESTION = ("judgments would decide q from your own queries: `qidf judgments git REPO "
              "--index INDEX --path-field FIELD --out DIR`, then --judgments DIR")


@dataclass
class Report:
    """The newer split's NDCG@10 at the chosen q against BM25: the number to believe."""

    queries: int
    chosen_ndcg10: float
    bm25_ndcg10: float
    delta: float
    p_value: float
    sign_flip_share: float


@dataclass
class JudgedDecision:
    """q decided from judgments, with what it was decided on and what it reports."""

    q: float
    reason: str
    index: str
    field: str
    judgments: dict[str, Any]
    reference_q: float
    reference: str
    tested_q: float
    doubt: float
    grid: list[float]
    older_queries: int
    older_available: int
    mean_ndcg10: dict[str, float]
    report: Report | None
    seconds: float
    notes: list[str] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def record(self) -> dict[str, Any]:
        """What ``apply`` stores in ``_meta.qidf`` (the shape of a prediction's record, so
        that ``show``, ``plan`` and ``check`` read either)."""
        return {"prediction": {
            "q": self.q, "q_formula": self.q, "predictor": PREDICTOR,
            "formula": f"sweep of NDCG@10 on the older judged queries, bootstrap guard "
                       f"against q {self.reference_q:g} ({self.reference})",
            "reason": self.reason, "ambiguous": False, "evidence": {}, "index": self.index,
            "field": self.field, "queries": None, "query_kind": None, "query_kind_use": None,
            "judgments": self.judgments,
            "choice": {"reference_q": self.reference_q, "reference": self.reference,
                       "tested_q": self.tested_q, "doubt": self.doubt, "grid": self.grid,
                       "older_queries": self.older_queries,
                       "older_available": self.older_available},
            "report": asdict(self.report) if self.report else None,
            "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "statistics": {}}}

    def report_line(self) -> str:
        r = self.report
        if r is None:
            return "no newer queries to report on (--split 1 keeps them all for choosing)"
        return (f"newer {r.queries:,} queries, NDCG@10 {r.chosen_ndcg10:.4f} at q {self.q:g} "
                f"against {r.bm25_ndcg10:.4f} with BM25 ({r.delta:+.4f}, paired bootstrap p = "
                f"{r.p_value:.3g})")


def _target(cluster: Cluster, index: str, field_name: str | None
            ) -> tuple[Target, QlogParams | None]:
    """The index and field, and the q-log parameters installed on it (None: built-in BM25)."""
    try:
        return inspect(cluster, index, field_name), None
    except ConflictError:
        state = install.read_state(cluster, index)
        have = state.installed
        if have.kind != "qlog" or have.params is None:
            raise
        fname = state.description.text_field(field_name)
        own = state.description.fields[fname].similarity
        if own and own not in ("BM25", "default"):
            raise
        return Target(state.index, fname, state.description.shards, have.describe(),
                      True), have.params


def _sample(ids: list[str], qrels: Qrels, limit: int, seed: int) -> list[str]:
    judged = [q for q in ids if q in qrels]
    if len(judged) <= limit:
        return judged
    keep = set(random.Random(seed).sample(judged, limit))
    return [q for q in judged if q in keep]


def _analyse(qt: QueryTime, texts: Mapping[str, str], bar: BarFactory
             ) -> dict[str, Counter[str]]:
    with bar("analysing the judged queries", len(texts)) as advance, \
            ThreadPoolExecutor(ANALYZE_WORKERS) as pool:
        out = {}
        for qid, counts in zip(texts, pool.map(qt.tokens, texts.values()), strict=True):
            out[qid] = counts
            advance(1)
        return out


def _rescaled(bodies: dict[str, dict[str, Any]], stats: TermStats, field_name: str,
              installed: QlogParams) -> dict[str, dict[str, Any]]:
    """Bodies whose boosts assume built-in BM25, for an index whose similarity is
    ``installed``: each clause times ``idf_bm25 / idf_installed`` of its term."""
    form = IdfForm(installed.form)
    for body in bodies.values():
        for clause in body.get("bool", {}).get("should", []):
            spec = clause["term"][field_name]
            n = stats.of(spec["value"])
            if n > 0 and stats.doc_count > 0:
                spec["boost"] *= (idf(BM25, stats.doc_count, n, IdfForm.LUCENE)
                                  / idf(installed.q, stats.doc_count, n, form))
    return bodies


class _Searcher:
    """Runs of analysed queries at any q, ranked as the index would rank with q-log at q."""

    def __init__(self, cluster: Cluster, qt: QueryTime, installed: QlogParams | None) -> None:
        self.cluster, self.qt, self.installed = cluster, qt, installed

    def run(self, terms: Mapping[str, Counter[str]], q: float, advance: Any) -> runs.Run:
        bodies = self.qt.queries(terms, q)
        if self.installed is not None:
            stats = self.qt.statistics(list(dict.fromkeys(t for c in terms.values()
                                                          for t in c)))
            bodies = _rescaled(bodies, stats, self.qt.target.field, self.installed)
        return runs.search_run(self.cluster, self.qt.target.index, self.qt.target.field,
                               terms, k=10, queries=bodies, search_type=self.qt.search_type,
                               advance=advance)


def label_free_reference(cluster: Cluster, index: str, field_name: str,
                         progress: Progress = quiet) -> tuple[float, str, str | None]:
    """(q, where it came from, a note): the label-free q, or BM25 when these credentials
    cannot read the index's statistics."""
    from qidf_ctl.predictors import predict_for_index

    progress("predicting the label-free q (the reference the judgments must beat)")
    try:
        prediction = predict_for_index(cluster, index, field_name)
    except ClusterError as exc:
        if exc.status not in (401, 403):
            raise
        return BM25, "BM25", (f"the label-free q could not be computed ({exc}): the guard "
                              "starts from BM25")
    return prediction.q, f"--q auto without judgments, {prediction.predictor}", None


def neighbours(q: float, grid: tuple[float, ...] = DEFAULT_GRID) -> list[float]:
    """The values of ``grid`` just below and just above ``q``."""
    below = [g for g in grid if g < q]
    above = [g for g in grid if g > q]
    return ([max(below)] if below else []) + ([min(above)] if above else [])


def _best(per_q: Mapping[float, Mapping[str, float]]) -> float:
    return max(per_q, key=lambda q: (sum(per_q[q].values()) / max(len(per_q[q]), 1), q))


def decide(cluster: Cluster, index: str, judgments: Judgments, *,
           field_name: str | None = None, grid: tuple[float, ...] | None = None,
           reference: tuple[float, str] | None = None, max_queries: int = MAX_QUERIES,
           seed: int = 0, progress: Progress = quiet, bar: BarFactory = no_bar
           ) -> JudgedDecision:
    """The q ``judgments`` choose for ``index`` (module docstring). ``reference``: (q, its
    source); by default the label-free prediction. ``grid``: every q to measure (default:
    coarse to fine on sweep's grid)."""
    started = time.monotonic()
    fname = field_name or judgments.manifest.get("field") or None
    target, installed = _target(cluster, index, fname)
    qt = QueryTime(cluster, target, BM25)
    notes: list[str] = []
    if reference is None:
        ref_q, ref_source, note = label_free_reference(cluster, target.index, target.field,
                                                       progress)
        if note:
            notes.append(note)
    else:
        ref_q, ref_source = reference
    older_ids, _ = judgments.part(OLDER)
    newer_ids, _ = judgments.part(NEWER)
    if not older_ids:
        raise UsageError(f"the judgments in {judgments.folder or judgments.manifest.get('origin')}"
                         " have no older queries to choose q with: write them with a --split "
                         "above 0")
    older = _sample(list(older_ids), judgments.qrels, max_queries, seed)
    newer = _sample(list(newer_ids), judgments.qrels, max_queries, seed)
    texts = {q: judgments.queries[q] for q in [*older, *newer]}
    terms = _analyse(qt, texts, bar)
    progress(f"reading the statistics of {len({t for c in terms.values() for t in c}):,} "
             "terms")
    qt.statistics(list(dict.fromkeys(t for c in terms.values() for t in c)))
    searcher = _Searcher(cluster, qt, installed)
    first = tuple(sorted({*(grid or COARSE), ref_q, BM25}))
    choose_terms = {q: terms[q] for q in older}
    choose_qrels = {q: judgments.qrels[q] for q in older}
    per_q: dict[float, dict[str, float]] = {}
    expected = len(first) + (0 if grid else 2)
    with bar(f"searching {len(older):,} older queries at each q", expected * len(older)
             ) as advance:
        pending = list(first)
        while pending:
            for q in pending:
                per_q[q] = score_run(searcher.run(choose_terms, q, advance), choose_qrels
                                     ).of(MEASURE)
            pending = [] if grid else [n for n in neighbours(_best(per_q)) if n not in per_q]
        advance(max(expected - len(per_q), 0) * len(older))  # fewer refinements than allowed
    points = tuple(sorted(per_q))
    chosen = recommend(per_q, ref_q, ref_source)
    report = None
    if newer:
        report_terms = {q: terms[q] for q in newer}
        report_qrels = {q: judgments.qrels[q] for q in newer}
        with bar(f"reporting on {len(newer):,} newer queries", 2 * len(newer)) as advance:
            at_chosen = score_run(searcher.run(report_terms, chosen.q, advance), report_qrels
                                  ).of(MEASURE)
            at_bm25 = (at_chosen if chosen.q == BM25 else score_run(
                searcher.run(report_terms, BM25, advance), report_qrels).of(MEASURE))
        boot = paired_bootstrap(at_chosen, at_bm25, seed=seed)
        report = Report(len(newer), boot.run_mean, boot.baseline_mean, boot.delta,
                        boot.p_value, boot.sign_flip_share)
    described = judgments.describe()
    described["sampled"] = {"older": len(older), "newer": len(newer), "seed": seed}
    mean = {f"{q:g}": sum(v.values()) / len(v) for q, v in per_q.items()}
    reason = (f"judgments ({described['source']}, {len(older):,} older queries): "
              f"{chosen.reason}")
    if len(older) < 100:
        notes.append(f"only {len(older)} older queries choose q: the guard keeps the reference "
                     f"unless a q wins in {1 - DOUBT:.0%} of {RESAMPLES:,} resamples, which few "
                     "queries rarely show")
    return JudgedDecision(
        chosen.q, reason, target.index, target.field, described, ref_q, ref_source,
        chosen.tested_q, chosen.doubt, list(points), len(older), len(older_ids), mean, report,
        round(time.monotonic() - started, 2), notes)



def describe_record(prediction: dict[str, Any]) -> str | None:
    """A recorded judgments decision (``record()['prediction']``) on one line: its source,
    size, split and report; None for a label-free prediction."""
    judged = prediction.get("judgments")
    if prediction.get("predictor") != PREDICTOR or not isinstance(judged, dict):
        return None
    split = judged.get("split") or {}
    choice = prediction.get("choice") or {}
    report = prediction.get("report") or {}
    text = (f"q {prediction.get('q')} from judgments: {judged.get('source')} "
            f"({judged.get('origin')}), {judged.get('queries')} queries split by "
            f"{split.get('by')}: {choice.get('older_queries')} older chose it against q "
            f"{choice.get('reference_q')} ({choice.get('reference')})")
    if report:
        text += (f"; {report.get('queries')} newer: NDCG@10 {report.get('chosen_ndcg10', 0):.4f}"
                 f" vs BM25 {report.get('bm25_ndcg10', 0):.4f} (p = "
                 f"{report.get('p_value', 1):.3g})")
    return text
