"""Which q a sweep on judged queries recommends: of the q whose mean NDCG@10 is within one
standard error of the best mean, the one nearest the reference (what ``--q auto`` would
choose).

A sweep's best point (its oracle) is the best q *for the queries it was measured on*. On a
sample of about a thousand judged queries neighbouring q differ by less than that sample's
noise, so the oracle moves with the sample. The one-standard-error rule (model selection's
classic guard) treats every q whose mean falls short of the best by less than the paired
standard error of that difference as equally good, and takes the one nearest the reference:
it moves as far as the judgements say beyond noise, no further. The sign test at ``ALPHA``
(``guarded_choice``) was the guard before: it kept the reference unless another q won a
landslide, and on 1,000 judged queries it kept q 0.7 where 0.5 was better
(benchmarks/retrieval/predictor.md, "Judged queries").
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


def standard_errors(per_query: Mapping[float, Sequence[float]]) -> tuple[float, dict[float,
                                                                                   float]]:
    """The best-mean q and, per q, the standard error of its mean's paired difference from
    the best's (queries aligned; 0 for the best itself)."""
    means = {q: sum(v) / len(v) for q, v in per_query.items()}
    best = max(means, key=lambda q: (means[q], q))
    top = per_query[best]
    out = {}
    for q, values in per_query.items():
        diffs = [b - v for b, v in zip(top, values, strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
        out[q] = math.sqrt(var / n)
    return best, out


def one_standard_error(per_query: Mapping[float, Sequence[float]], reference: float) -> float:
    """Of the q whose mean is within one paired standard error of the best mean, the one
    nearest ``reference`` (ties: the larger q)."""
    best, se = standard_errors(per_query)
    top = sum(per_query[best]) / len(per_query[best])
    ok = [q for q, v in per_query.items() if sum(v) / len(v) >= top - se[q]]
    return min(ok, key=lambda q: (abs(q - reference), -q))


@dataclass
class Recommendation:
    """The recommended q, the reference it started from, the best-mean q (``tested_q``) and
    how far the reference's mean falls short of it in standard errors; ``wins``/``losses``
    count the queries where the best-mean q beats or trails the reference (``p_value``: their
    sign test, for reading)."""

    q: float
    reference_q: float
    reference: str  # where the reference came from
    tested_q: float
    wins: int
    losses: int
    p_value: float
    reason: str
    standard_error: float = 0.0  # of the reference's shortfall from the best mean


def recommend(per_query: Mapping[float, Mapping[str, float]], reference_q: float,
              reference: str) -> Recommendation:
    """The one-standard-error choice over a sweep's per-query NDCG@10 (q -> query id ->
    score; a query missing under a q scored 0), with a one-line reason."""
    qids = sorted({qid for scores in per_query.values() for qid in scores})
    aligned = {q: [scores.get(qid, 0.0) for qid in qids] for q, scores in per_query.items()}
    chosen = one_standard_error(aligned, reference_q)
    best, se = standard_errors(aligned)
    mean = {q: sum(v) / len(v) for q, v in aligned.items()}
    wins, losses = _tally(aligned[best], aligned[reference_q])
    p = sign_test(wins, losses)
    n = len(qids)
    if chosen == reference_q:
        reason = (f"q {reference_q:g} ({reference}): within one standard error of the best "
                  f"mean on the {n} queries (q {best:g}: {mean[best]:.4f} against "
                  f"{mean[reference_q]:.4f}, standard error {se[reference_q]:.4f}): no q "
                  "beats it beyond noise")
    else:
        reason = (f"q {chosen:g}: the q nearest q {reference_q:g} ({reference}) within one "
                  f"standard error of the best mean on the {n} queries (best q {best:g}: "
                  f"{mean[best]:.4f}; q {reference_q:g}: {mean[reference_q]:.4f}, below it by "
                  f"more than its standard error {se[reference_q]:.4f})")
    return Recommendation(chosen, reference_q, reference, best, wins, losses, p, reason,
                          se[reference_q])


def _tally(values: Sequence[float], ref: Sequence[float]) -> tuple[int, int]:
    return (sum(v > r for v, r in zip(values, ref, strict=True)),
            sum(v < r for v, r in zip(values, ref, strict=True)))
