"""Comparing two runs of the same queries: identical top 10, score differences, NDCG@10."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.evaluation.runs import Run
from qidf_ctl.evaluation.score import score_run

MEASURE = "NDCG@10"


def ndcg10(run: Run, qrels: Qrels) -> dict[str, float]:
    """Per-query NDCG@10 (a query the run left empty scores 0)."""
    per_query = score_run(run, qrels).per_query
    return {qid: per_query.get(qid, {}).get(MEASURE, 0.0) for qid in qrels}


@dataclass
class Agreement:
    """How a run (``other``) compares with a reference run of the same queries."""

    queries: int
    identical_top10: int  # same documents in the same order
    same_top10_set: int  # same documents, any order
    max_rel_score_diff: float  # over queries with identical top 10
    ndcg_reference: float
    ndcg_other: float
    ndcg_changed: int  # queries whose NDCG@10 differs
    mean_abs_ndcg_change: float  # over those queries

    @property
    def ndcg_delta(self) -> float:
        return self.ndcg_other - self.ndcg_reference

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ndcg_delta": self.ndcg_delta,
                "identical_share": self.identical_top10 / max(self.queries, 1)}


def agreement(reference: Run, other: Run, qrels: Qrels) -> Agreement:
    qids = sorted(qrels)
    identical = same_set = 0
    worst = 0.0
    for qid in qids:
        a, b = reference.get(qid, []), other.get(qid, [])
        if [d for d, _ in a] == [d for d, _ in b]:
            identical += 1
            for (_, x), (_, y) in zip(a, b, strict=True):
                worst = max(worst, abs(x - y) / max(abs(x), 1e-30))
        same_set += {d for d, _ in a} == {d for d, _ in b}
    ref, oth = ndcg10(reference, qrels), ndcg10(other, qrels)
    changes = [abs(oth[q] - ref[q]) for q in qids if abs(oth[q] - ref[q]) > 1e-12]
    n = max(len(qids), 1)
    return Agreement(len(qids), identical, same_set, worst, sum(ref.values()) / n,
                     sum(oth.values()) / n, len(changes),
                     sum(changes) / len(changes) if changes else 0.0)
