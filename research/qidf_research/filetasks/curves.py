"""Per-query NDCG@10 at every q of the grid (and the index's own BM25), for every judged
commit, from the product's sweep (``qidf_ctl.evaluation.sweep``, query-time mode: each q is
built into boosted term queries on the one-shard index, which ranks as the installed
similarity does, and the index is never changed).

A query's NDCG@10 at a q does not depend on which other queries are swept with it, so one
sweep over all judged commits gives both halves' curves, and a choice made on the older
half's curve is the choice ``qidf sweep`` makes when given the older half alone
(``decisions`` checks this against the CLI).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.evaluation.evaluate import analyze_queries
from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.querytime import QueryTime

GRID = sweep_lib.DEFAULT_GRID
BASELINE = "baseline"


def label(q: float) -> str:
    """The key of q's curve (``sweep``'s own: ``f"{q:g}"``)."""
    return f"{q:g}"


@dataclass
class Curves:
    """label ("baseline" or a q) -> query id -> NDCG@10."""

    field: str
    baseline_similarity: str
    per_query: dict[str, dict[str, float]]
    seconds: float = 0.0
    extra: dict[str, object] = dataclasses.field(default_factory=dict)

    @property
    def grid(self) -> list[float]:
        return sorted(float(k) for k in self.per_query if k != BASELINE)

    def at(self, q: float) -> dict[str, float]:
        return self.per_query[label(q)]

    def mean(self, key: str, qids: Iterable[str]) -> float:
        ids = list(qids)
        values = self.per_query[key]
        return sum(values.get(q, 0.0) for q in ids) / len(ids)

    def restricted(self, qids: Iterable[str]) -> dict[float, dict[str, float]]:
        """q -> (query id -> NDCG@10) over ``qids`` only: what a sweep on them returns."""
        ids = list(qids)
        return {q: {i: self.at(q).get(i, 0.0) for i in ids} for q in self.grid}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"field": self.field,
                                    "baseline_similarity": self.baseline_similarity,
                                    "seconds": self.seconds, "extra": self.extra,
                                    "per_query": self.per_query}) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Curves:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["field"], data["baseline_similarity"], data["per_query"],
                   data.get("seconds", 0.0), data.get("extra", {}))


def analysed(cluster: Cluster, index: str, field_name: str, queries: Mapping[str, str]
             ) -> dict[str, Counter[str]]:
    """Each query's tokens as the query-time sweep analyses them."""
    qt = QueryTime.connect(cluster, index, 1.0, field_name)
    return {k: Counter(v) for k, v in
            analyze_queries(cluster, index, field_name, queries, tokens=qt.tokens).items()}


def sweep(cluster: Cluster, index: str, field_name: str, queries: dict[str, str], qrels: Qrels,
          terms: Mapping[str, Counter[str]], grid: tuple[float, ...] = GRID,
          log: object = None) -> Curves:
    """The product's query-time sweep over ``grid``; its per-query values kept."""
    started = time.monotonic()
    progress = log if callable(log) else (lambda _m: None)
    result = sweep_lib.sweep(cluster, index, queries, qrels, grid=grid, field_name=field_name,
                             terms=terms, query_time=True, progress=progress)
    return Curves(result.field, result.baseline_similarity, dict(result.per_query),
                  time.monotonic() - started)


def extend(curves: Curves, cluster: Cluster, index: str, queries: dict[str, str],
           qrels: Qrels, terms: Mapping[str, Counter[str]], qs: Iterable[float]) -> bool:
    """Add the curves of q values the grid lacks (a decision off the grid); True if any."""
    missing = tuple(sorted({q for q in qs if label(q) not in curves.per_query}))
    if not missing:
        return False
    more = sweep(cluster, index, curves.field, queries, qrels, terms, missing)
    for q in missing:
        curves.per_query[label(q)] = more.at(q)
    return True
