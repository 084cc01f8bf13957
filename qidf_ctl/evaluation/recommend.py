"""Which q a sweep on judged queries recommends: the reference q (what ``--q auto`` would
choose) unless another q beats it on a clear majority of the judged queries.

A sweep's best point (its oracle) is the best q *for the queries it was measured on*. On a
sample of about a thousand judged queries neighbouring q differ by less than that sample's
noise, so the oracle moves with the sample and the next thousand queries may lose with it.
The recommendation keeps the reference and moves only when the queries where another q is
better outnumber those where it is worse beyond chance: a one-sided exact sign test at
``ALPHA`` (0.05 over ten candidates, Bonferroni). Of the q that pass, the best mean wins.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ALPHA = 0.005


def sign_test(wins: int, losses: int) -> float:
    """One-sided exact sign test: P(at least ``wins`` of the ``wins + losses`` queries where
    two q differ favour the candidate) when neither q is better. Ties do not count."""
    n = wins + losses
    if n == 0:
        return 1.0
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2 ** n


def guarded_choice(per_query: Mapping[float, Sequence[float]], reference: float,
                   alpha: float = ALPHA) -> float:
    """``reference`` unless a q of ``per_query`` (q -> a score per query, queries aligned)
    beats it by the sign test at ``alpha``; of those that do, the best mean (ties: larger
    q)."""
    ref = per_query[reference]
    best = (sum(ref) / len(ref), reference)
    for q, values in per_query.items():
        if q != reference and sign_test(*_tally(values, ref)) <= alpha:
            best = max(best, (sum(values) / len(values), q))
    return best[1]


@dataclass
class Recommendation:
    """The recommended q, the reference it was tested against, and the test: of ``tested_q``
    (the q moved to, or, when the reference stays, the best-mean other q) against it."""

    q: float
    reference_q: float
    reference: str  # where the reference came from
    tested_q: float
    wins: int  # queries where tested_q beats the reference
    losses: int
    p_value: float
    reason: str


def recommend(per_query: Mapping[float, Mapping[str, float]], reference_q: float,
              reference: str) -> Recommendation:
    """The guarded choice over a sweep's per-query NDCG@10 (q -> query id -> score; a query
    missing under a q scored 0), with a one-line reason."""
    qids = sorted({qid for scores in per_query.values() for qid in scores})
    aligned = {q: [scores.get(qid, 0.0) for qid in qids] for q, scores in per_query.items()}
    chosen = guarded_choice(aligned, reference_q)
    ref = aligned[reference_q]
    rivals = [q for q in aligned if q != reference_q]
    tested = chosen if chosen != reference_q else max(
        rivals, key=lambda q: (sum(aligned[q]), q), default=reference_q)
    wins, losses = _tally(aligned[tested], ref)
    p = sign_test(wins, losses)
    if chosen == reference_q:
        reason = (f"q {reference_q:g} ({reference}): no q beats it on a clear majority of "
                  f"the {len(qids)} queries (best mean q {tested:g}: better on {wins}, worse "
                  f"on {losses}, sign test p = {p:.2g} > {ALPHA})")
    else:
        reason = (f"q {chosen:g}: better than q {reference_q:g} ({reference}) on {wins} of "
                  f"the {len(qids)} queries, worse on {losses} (sign test p = {p:.2g} <= "
                  f"{ALPHA})")
    return Recommendation(chosen, reference_q, reference, tested, wins, losses, p, reason)


def _tally(values: Sequence[float], ref: Sequence[float]) -> tuple[int, int]:
    return (sum(v > r for v, r in zip(values, ref, strict=True)),
            sum(v < r for v, r in zip(values, ref, strict=True)))
