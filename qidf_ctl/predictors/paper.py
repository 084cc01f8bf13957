"""The paper's label-free predictor: q = 1 - 7.28 * h_tok.

The paper's definition of h_tok is not public; it is read here as the share of token
occurrences whose term has df = 1 (the ``tokens`` density, "hapax token share"): on real
code under a generic analyzer that reading gives the formula a recovery close to the
paper's own, while the share of the vocabulary (0.4-0.7 on code) would make every q
negative. The benchmark imports this definition rather than writing its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qidf_ctl.predictors.base import (
    BUILTIN_HINT,
    Q_MAX,
    Q_MIN,
    Decision,
    Predictor,
    clip_q,
    register,
)
from qidf_ctl.predictors.evidence import density

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.query_sample import QuerySample

SLOPE = 7.28
DENSITY = "tokens"


def paper_q(h_tok: float) -> float:
    """The paper's formula, before clipping."""
    return 1.0 - SLOPE * h_tok


def why(q: float) -> str:
    if q >= 0.9:
        return f"close to 1: BM25 is already right here; {BUILTIN_HINT}"
    if q <= 0.4:
        return "identifier-heavy corpus: rare terms deserve much more weight than BM25 gives"
    return "some identifier-heavy material: rare terms deserve more weight than BM25 gives"


def decide(field_stats: FieldStats, queries: QuerySample | None) -> Decision:
    del queries  # the paper's predictor reads the corpus only
    h = density(field_stats, DENSITY)
    q_formula = paper_q(h.value)
    q = clip_q(q_formula)
    clip = (f" (formula gives {q_formula:.2f}, clipped to [{Q_MIN}, {Q_MAX:g}])"
            if not Q_MIN <= q_formula <= Q_MAX else "")
    return Decision(q_formula, f"{h.name} {h.value:.3f} -> q {q:.2f}{clip}: {why(q)}",
                    evidence={DENSITY: h})


PAPER = register(Predictor(
    name="paper", formula=f"q = 1 - {SLOPE:g} * h_tok (h_tok: hapax token share)",
    source="the paper's label-free predictor (leave-one-language-out recovery 0.72); h_tok "
           "read as the share of token occurrences whose term has df = 1",
    decide=decide,
))
