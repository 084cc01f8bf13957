"""Which q a sweep on judged queries recommends: the best-mean q, unless the judgements
leave real doubt that it beats the reference (what ``--q auto`` would choose).

A sweep's best point (its oracle) is the best q *for the queries it was measured on*. On a
sample of about a thousand judged queries neighbouring q differ by less than that sample's
noise, so the oracle moves with the sample. The guard resamples the judged queries (a paired
bootstrap, ``RESAMPLES`` draws, seeded) and keeps the reference only when the best q's mean
gain over it is zero or less in more than ``DOUBT`` of the draws: it protects against noise,
not against every move. The sign test at ``ALPHA`` (``guarded_choice``) was the guard
before: it kept the reference unless another q won a landslide, and on 1,000 judged queries
kept q 0.7 where 0.5 was better (benchmarks/retrieval/predictor.md, "Judged queries": on
the benchmark's languages it recovers 0.965 against the sign test's 0.954).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ALPHA = 0.005
RESAMPLES = 1000
DOUBT = 0.10  # the share of resamples in which the best q may fail to gain


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


def doubt(best: Sequence[float], reference: Sequence[float], resamples: int = RESAMPLES,
          seed: int = 0) -> float:
    """The share of paired bootstrap resamples of the queries in which ``best``'s mean is
    not above ``reference``'s (queries aligned)."""
    diffs = [b - r for b, r in zip(best, reference, strict=True)]
    n = len(diffs)
    if not n:
        return 1.0
    rng = random.Random(seed)
    losing = 0
    for _ in range(resamples):
        if sum(diffs[rng.randrange(n)] for _ in range(n)) <= 0:
            losing += 1
    return losing / resamples


def bootstrap_choice(per_query: Mapping[float, Sequence[float]], reference: float
                     ) -> tuple[float, float, float]:
    """(the recommended q, the best-mean q, the doubt that it beats ``reference``): the
    best-mean q (ties: larger q) unless that doubt exceeds ``DOUBT``."""
    best = max(per_query, key=lambda q: (sum(per_query[q]) / len(per_query[q]), q))
    if best == reference:
        return reference, best, 0.0
    d = doubt(per_query[best], per_query[reference])
    return (best if d <= DOUBT else reference), best, d


@dataclass
class Recommendation:
    """The recommended q, the reference it started from, the best-mean q (``tested_q``) and
    the bootstrap doubt that it beats the reference; ``wins``/``losses`` count the queries
    where the best-mean q beats or trails the reference (``p_value``: their sign test, for
    reading)."""

    q: float
    reference_q: float
    reference: str  # where the reference came from
    tested_q: float
    wins: int
    losses: int
    p_value: float
    reason: str
    doubt: float = 0.0  # share of resamples in which tested_q does not beat the reference


BM25_Q = 1.0


def _where(q: float, reference: str, reference_q: float) -> str:
    """How a q reads in a sentence: BM25 for 1, and where the reference came from."""
    name = "BM25 (q = 1)" if q == BM25_Q else f"q {q:g}"
    return f"{name}, {reference}" if q == reference_q and q != BM25_Q else name


def recommend(per_query: Mapping[float, Mapping[str, float]], reference_q: float,
              reference: str) -> Recommendation:
    """The bootstrap-guarded choice over a sweep's per-query NDCG@10 (q -> query id -> score;
    a query missing under a q scored 0), with a one-sentence reason.

    One rule on top of the guard: where BM25 (q = 1) has the best mean, BM25 stays, whatever
    the reference. The guard keeps the reference when a move is not beyond noise; but a
    reference below 1 is itself a change (a close, a script on every search), and the
    judgements do not support it when BM25 measured best."""
    qids = sorted({qid for scores in per_query.values() for qid in scores})
    aligned = {q: [scores.get(qid, 0.0) for qid in qids] for q, scores in per_query.items()}
    chosen, best, d = bootstrap_choice(aligned, reference_q)
    if best == BM25_Q:
        chosen = BM25_Q
    mean = {q: sum(v) / len(v) for q, v in aligned.items()}
    wins, losses = _tally(aligned[best], aligned[reference_q])
    p = sign_test(wins, losses)
    n = len(qids)
    ref = _where(reference_q, reference, reference_q)
    if chosen == BM25_Q:
        verb = "BM25 stays (q = 1)"
    else:
        verb = f"install q {chosen:g}" + (f" ({reference})" if chosen == reference_q else "")
    if best == chosen == reference_q:
        reason = f"{verb}: it has the best NDCG@10 on these {n} queries ({mean[best]:.4f})"
    elif best == chosen:
        reason = (f"{verb}: it has the best NDCG@10 on these {n} queries ({mean[best]:.4f}, "
                  f"against {mean[reference_q]:.4f} at {ref})")
        if best != BM25_Q or d <= DOUBT:
            reason += (f", ahead in {1 - d:.0%} of {RESAMPLES:,} bootstrap resamples of the "
                       f"queries (better on {wins} queries, worse on {losses})")
    else:
        reason = (f"{verb}: {_where(best, reference, reference_q)} scored higher on these "
                  f"{n} queries ({mean[best]:.4f} against {mean[reference_q]:.4f}) but not "
                  f"clearly: it is not ahead in {d:.0%} of {RESAMPLES:,} bootstrap resamples "
                  f"(more than {DOUBT:.0%})")
    return Recommendation(chosen, reference_q, reference, best, wins, losses, p, reason, d)


def _tally(values: Sequence[float], ref: Sequence[float]) -> tuple[int, int]:
    return (sum(v > r for v, r in zip(values, ref, strict=True)),
            sum(v < r for v, r in zip(values, ref, strict=True)))
