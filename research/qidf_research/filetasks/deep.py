"""Deep runs at a few q on the newer half: NDCG@10, Recall@100 and the share of the changed
files inside the ranked prefix that fits 8K and 27K tokens (whole files, cl100k), each per
query, for the paired bootstraps. Searched the way the sweep searches (query-time boosted
term queries; q = 1 is the plain BM25 query), ``DEPTH`` hits deep: a query whose whole run
fits the budget is counted (``depth_limited``), since a deeper run could score higher."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.evaluation.score import BUDGET_MEASURE, score_run
from qidf_ctl.querytime import QueryTime

DEPTH = 200
BUDGETS = {"Recall@8K-tokens": 8000, "Recall@27K-tokens": 27000}
MEASURES = ("NDCG@10", "Recall@100", *BUDGETS)


@dataclass
class DeepPoint:
    q: float
    per_query: dict[str, dict[str, float]]  # measure -> query id -> value
    depth_limited: dict[str, int]  # budget measure -> queries whose whole run fits it

    def mean(self, measure: str) -> float:
        values = self.per_query[measure]
        return sum(values.values()) / len(values)


def run_at(cluster: Cluster, index: str, field_name: str, terms: Mapping[str, Counter[str]],
           q: float, depth: int = DEPTH) -> runs.Run:
    if q == 1.0:
        return runs.search_run(cluster, index, field_name, terms, k=depth)
    qt = QueryTime.connect(cluster, index, 1.0, field_name)
    return runs.search_run(cluster, index, field_name, terms, k=depth,
                           queries=qt.queries(terms, q))


def measure(cluster: Cluster, index: str, field_name: str, terms: Mapping[str, Counter[str]],
            qrels: Qrels, doc_tokens: Mapping[str, int], q: float) -> DeepPoint:
    run = run_at(cluster, index, field_name, terms, q)
    per_query: dict[str, dict[str, float]] = {}
    limited: dict[str, int] = {}
    for name, budget in BUDGETS.items():
        scored = score_run(run, qrels, doc_tokens, budget)
        # score_run names its budget measure "Recall@8K-tokens" whatever the budget
        per_query[name] = scored.of(BUDGET_MEASURE)
        limited[name] = scored.depth_limited
    per_query["NDCG@10"] = scored.of("NDCG@10")
    per_query["Recall@100"] = scored.of("Recall@100")
    return DeepPoint(q, per_query, limited)
