"""Retrieval metrics through ir-measures (pytrec_eval underneath), never hand-written.

A query the run returned nothing for still counts, with score 0: the mean is over every
query that has relevance judgements, as ir_measures' own convention for missing queries
would otherwise silently drop them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from qidf_ctl.errors import missing_extra

DEFAULT_MEASURES = ("nDCG@10", "RR@10", "R@100")


@dataclass(frozen=True)
class Scores:
    """Mean of each measure over all judged queries, and the per-query values."""

    mean: dict[str, float]
    per_query: dict[str, dict[str, float]]


def evaluate(
    run: Mapping[str, list[tuple[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    measures: Iterable[str] = DEFAULT_MEASURES,
) -> Scores:
    try:
        import ir_measures
    except ImportError:
        raise missing_extra("retrieval metrics", None, "ir-measures") from None

    parsed = [ir_measures.parse_measure(m) for m in measures]
    names = [str(m) for m in parsed]
    # Rank order must survive ties: give tied docs strictly decreasing pseudo-scores.
    scored = {
        qid: {doc: float(len(hits) - rank) for rank, (doc, _) in enumerate(hits)}
        for qid, hits in run.items() if hits
    }
    per_query: dict[str, dict[str, float]] = {
        qid: dict.fromkeys(names, 0.0) for qid in qrels
    }
    judged = {qid: dict(rels) for qid, rels in qrels.items()}
    for metric in ir_measures.iter_calc(parsed, judged, scored):
        if metric.query_id in per_query:
            per_query[metric.query_id][str(metric.measure)] = float(metric.value)
    n = max(len(per_query), 1)
    mean = {name: sum(v[name] for v in per_query.values()) / n for name in names}
    return Scores(mean, per_query)


def recall_at_token_budget(
    run: Mapping[str, list[tuple[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    doc_tokens: Mapping[str, int],
    budget: int = 8000,
) -> dict[str, float]:
    """Per judged query: the share of relevant documents inside the ranked prefix that fits
    ``budget`` tokens (a RAG context). Taken in rank order; the first document that would
    overflow the budget ends the prefix (nothing smaller is skipped ahead to).

    No IR library has this measure, so it is written here, on top of the same run the
    library scores. Unjudged queries are ignored; queries missing from the run score 0.
    """
    out: dict[str, float] = {}
    for qid, rels in qrels.items():
        relevant = {d for d, r in rels.items() if r > 0}
        if not relevant:
            continue
        hits = run.get(qid, [])
        fitting = budget_prefix((doc_tokens[doc] for doc, _ in hits), budget)
        out[qid] = sum(doc in relevant for doc, _ in hits[:fitting]) / len(relevant)
    return out


def budget_prefix(lengths: Iterable[int], budget: int) -> int:
    """How many leading documents of a ranking fit ``budget`` tokens: taken in rank order,
    the first one that would overflow ends the prefix. The one definition of the walk, shared
    by Recall@budget-tokens and by what an agent is handed (``qidf_ctl.agents``). ``lengths``
    is read only as far as the walk goes (a generator may fetch lazily)."""
    used = 0
    taken = 0
    for length in lengths:
        used += length
        if used > budget:
            break
        taken += 1
    return taken
