"""The position-based click model (PBM), fitted by expectation-maximisation: graded judgments
from clicks with the position bias taken out.

A result is clicked when it is examined and attractive, independently: ``P(click at rank r)
= gamma_r * alpha_qd`` (Craswell et al. 2008's examination hypothesis; Chuklin, Markov and de
Rijke, *Click Models for Web Search*, 2015, section 3.4 for the model and 4.2 for its EM).
``gamma_r`` is the chance a result at rank ``r`` is looked at, shared by every query;
``alpha_qd`` the chance a document is clicked for a query once it is looked at: its
attractiveness, which the grades come from. A click at rank 8 then weighs more than one at
rank 1, and an unclicked result at rank 9 says little against it.

Why this model: it needs only what every UBI log has (what was shown at which rank, what was
clicked), takes any number of clicks per search in any order (an agent fetches several
results; cascade models such as DBN assume one scan downwards and need the click order),
and its parameters are probabilities, so grades are thresholds a reader can interpret.

What it cannot do: where every search of a query showed its results in the same order, the
log cannot tell examination from attractiveness (only their product is seen), and EM keeps
the examination curve it starts from for those ranks. It starts from ``gamma_r = 1/r`` (the
curve click simulations and counterfactual learning to rank assume, e.g. Joachims et al.
2017, eta = 1); rankings that vary (new documents, another q, pages, agents' budgets) let
the data move it, each rank's curve weighing as ``PRIOR_IMPRESSIONS`` impressions against
the data (a MAP estimate under that prior). Results never shown (below the page) get no
judgment at all: clicks judge what the ranking that served them showed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ITERATIONS = 100
TOLERANCE = 1e-6
START_ALPHA = 0.5
# The examination curve's prior weight, in impressions per rank: a rank seen a few times
# with no click would otherwise be taken as never examined (gamma -> 0), and every document
# shown there would keep its starting attractiveness (0.5: judged relevant unseen).
PRIOR_IMPRESSIONS = 10.0


@dataclass(frozen=True)
class Impression:
    """A result shown: the (query, document) pair it belongs to, its rank (from 1) and
    whether it was clicked."""

    pair: int
    rank: int
    clicked: bool


@dataclass
class Fitted:
    """The fitted model: attractiveness per pair, examination per rank (index 0 is rank 1),
    impressions and clicks per pair, and how EM ended."""

    alpha: np.ndarray
    gamma: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    iterations: int
    converged: bool


def start_gamma(ranks: int) -> np.ndarray:
    return 1.0 / np.arange(1, ranks + 1, dtype=float)


def fit(impressions: Sequence[Impression], pairs: int, *, iterations: int = ITERATIONS,
        tolerance: float = TOLERANCE) -> Fitted:
    """EM for the PBM over ``impressions`` of ``pairs`` (query, document) pairs.

    E step, per impression: a click means examined and attractive; no click gives the
    posteriors ``P(A | no click) = a(1 - g) / (1 - a g)`` and ``P(E | no click) = g(1 - a) /
    (1 - a g)``. M step: each attractiveness is the mean of its posteriors; each examination
    probability too, with ``PRIOR_IMPRESSIONS`` pseudo-impressions at the starting curve."""
    if not impressions:
        empty = np.zeros(0)
        return Fitted(np.zeros(pairs), empty, np.zeros(pairs, dtype=int),
                      np.zeros(pairs, dtype=int), 0, True)
    pair = np.fromiter((i.pair for i in impressions), dtype=np.int64, count=len(impressions))
    rank = np.fromiter((i.rank - 1 for i in impressions), dtype=np.int64,
                       count=len(impressions))
    click = np.fromiter((i.clicked for i in impressions), dtype=bool, count=len(impressions))
    ranks = int(rank.max()) + 1
    shown = np.bincount(pair, minlength=pairs).astype(float)
    at_rank = np.bincount(rank, minlength=ranks).astype(float)
    alpha = np.full(pairs, START_ALPHA)
    prior = start_gamma(ranks)
    gamma = prior.copy()
    done, converged = 0, False
    for done in range(1, iterations + 1):  # noqa: B007 - the count is reported
        a, g = alpha[pair], gamma[rank]
        denominator = np.maximum(1.0 - a * g, 1e-12)
        post_a = np.where(click, 1.0, a * (1.0 - g) / denominator)
        post_e = np.where(click, 1.0, g * (1.0 - a) / denominator)
        new_alpha = np.bincount(pair, weights=post_a, minlength=pairs) / np.maximum(shown, 1)
        new_gamma = ((np.bincount(rank, weights=post_e, minlength=ranks)
                      + PRIOR_IMPRESSIONS * prior) / (at_rank + PRIOR_IMPRESSIONS))
        change = max(float(np.abs(new_alpha - alpha).max()),
                     float(np.abs(new_gamma - gamma).max()))
        alpha, gamma = new_alpha, new_gamma
        if change < tolerance:
            converged = True
            break
    clicks = np.bincount(pair, weights=click.astype(float), minlength=pairs).astype(int)
    return Fitted(alpha, gamma, shown.astype(int), clicks, done, converged)
