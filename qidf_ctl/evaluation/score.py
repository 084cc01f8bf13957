"""Scoring a run: the library's metrics plus Recall@budget-tokens, per query and mean."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.evaluation.metrics import evaluate as ir_evaluate
from qidf_ctl.evaluation.metrics import recall_at_token_budget

# ir-measures name -> the name we report.
MEASURES = {"nDCG@10": "NDCG@10", "RR@10": "MRR@10", "R@100": "Recall@100"}
BUDGET_MEASURE = "Recall@8K-tokens"
DEFAULT_BUDGET = 8000


def _fits(hits: list[tuple[str, float]], doc_tokens: Mapping[str, int], budget: int) -> bool:
    """True when the whole hit list fits the budget: the run's depth, not the budget, ended
    the walk, so a deeper run could have scored higher."""
    used = 0
    for doc, _ in hits:
        if doc not in doc_tokens:
            return False
        used += doc_tokens[doc]
        if used > budget:
            return False
    return True


@dataclass
class Scored:
    """Means and per-query values of every reported measure, for one run."""

    mean: dict[str, float]
    per_query: dict[str, dict[str, float]]
    empty_queries: int
    depth_limited: int = 0

    def of(self, measure: str) -> dict[str, float]:
        """Query id -> the value of ``measure``: what paired comparisons read."""
        return {q: v[measure] for q, v in self.per_query.items()}


def score_run(run: runs.Run, qrels: Qrels, doc_tokens: Mapping[str, int] | None = None,
              budget: int = DEFAULT_BUDGET) -> Scored:
    """Library metrics plus Recall@budget-tokens when ``doc_tokens`` is given."""
    scores = ir_evaluate(run, qrels, MEASURES)
    per_query = {q: {MEASURES[m]: v for m, v in vals.items()}
                 for q, vals in scores.per_query.items()}
    mean = {MEASURES[m]: v for m, v in scores.mean.items()}
    empty = sum(1 for q in qrels if not run.get(q))
    limited = 0
    if doc_tokens is not None:
        recall = recall_at_token_budget(run, qrels, doc_tokens, budget)
        for q in per_query:
            per_query[q][BUDGET_MEASURE] = recall.get(q, 0.0)
        mean[BUDGET_MEASURE] = sum(v[BUDGET_MEASURE] for v in per_query.values()) / max(
            len(per_query), 1)
        limited = sum(1 for q in qrels if run.get(q) and _fits(run[q], doc_tokens, budget))
    return Scored(mean, per_query, empty, limited)


class WithPerQuery:
    """A result dataclass whose ``per_query`` values stay out of ``as_dict`` unless asked
    for (they are large; ``--json`` prints the means)."""

    def as_dict(self, per_query: bool = False) -> dict[str, Any]:
        data = asdict(self)  # type: ignore[call-overload]
        if not per_query:
            data.pop("per_query")
        return data  # type: ignore[no-any-return]
