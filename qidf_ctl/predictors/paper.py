"""The paper's label-free predictor: q = 1 - 7.28 * h_tok.

The paper's definition of h_tok is not public; it is read here as the share of token
occurrences whose term has df = 1 (the ``tokens`` density): on real code under a generic
analyzer that reading gives the formula a recovery close to the paper's own, while the share
of the vocabulary (0.4-0.7 on code) would make every q negative. The benchmark imports this
definition rather than writing its own.
"""

from __future__ import annotations

from qidf_ctl.predictors.base import Predictor, register

SLOPE = 7.28
DENSITY = "tokens"


def paper_q(h_tok: float) -> float:
    """The paper's formula, before clipping."""
    return 1.0 - SLOPE * h_tok


PAPER = register(Predictor(
    name="paper", density=DENSITY, formula=f"q = 1 - {SLOPE:g} * h_tok",
    q_of=paper_q,
    source="the paper's label-free predictor (leave-one-language-out recovery 0.72); h_tok "
           "read as the share of token occurrences whose term has df = 1",
))
