"""qidf-gate, the default predictor: BM25 unless the field holds rare-identifier material.

q = 1 when the field's analyzer already splits identifiers (``analyzer_probe``): rare
identifiers are then no longer one-off tokens, and such fields lose at lower q. Otherwise
x = types_per_token * (N / 10,000) ** GATE_EXPONENT, the df = 1 terms per token the field
would have at 10,000 documents, and q = 1 when x < GATE_THRESHOLD, else GATE_Q. The density
does not set q; it only decides whether there is enough rare-identifier material to leave
BM25, because on code the optimum is flat and GATE_Q captures most of the gain.

The constants are fitted on the retrieval benchmark: benchmarks/retrieval/predictor.md has
the study and its numbers, and the research package's predictor fit recomputes them.
qidf-gate needs N as well as a density, so it gives ``Predictor.q_of_stats``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qidf_ctl.predictors.base import BUILTIN_HINT, Predictor, register

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats

SOURCE = "fitted on the retrieval benchmark (benchmarks/retrieval/predictor.md)"

GATE_DENSITY = "types_per_token"
GATE_REF_DOCS = 10_000.0
GATE_EXPONENT = 0.29  # pooled slope of log types_per_token on log N, nested Go subsets
GATE_THRESHOLD = 0.0165
GATE_Q = 0.6
GATE_Q_SAFE = 1.0


def size_adjusted(types_per_token: float, documents: float) -> float:
    """df = 1 terms per token, moved to what a 10,000-document field would show."""
    return types_per_token * (max(documents, 1.0) / GATE_REF_DOCS) ** GATE_EXPONENT


def q_gate(types_per_token: float, documents: float) -> float:
    """BM25 unless the size-adjusted hapax density shows rare-identifier material."""
    if size_adjusted(types_per_token, documents) < GATE_THRESHOLD:
        return GATE_Q_SAFE
    return GATE_Q


def q_gate_of_stats(field_stats: FieldStats) -> float:
    if field_stats.splits_identifiers:
        return GATE_Q_SAFE
    return q_gate(field_stats.densities[GATE_DENSITY], field_stats.documents)


def explain_gate(field_stats: FieldStats, q: float) -> str | None:
    """The analyzer, not the density, decided: say so."""
    if not field_stats.splits_identifiers:
        return None
    return (f"the analyzer already splits identifiers "
            f"({', '.join(field_stats.splits_identifiers)}) -> q {q:.2f}: rare identifiers "
            f"are no longer one-off tokens, BM25 stays; {BUILTIN_HINT}")


GATED = register(Predictor(
    name="qidf-gate", density=GATE_DENSITY,
    formula=(f"q = {GATE_Q_SAFE:g} if the analyzer splits identifiers; else "
             f"x = h_types * (N / {GATE_REF_DOCS:,.0f})^{GATE_EXPONENT:g}; "
             f"q = {GATE_Q_SAFE:g} if x < {GATE_THRESHOLD:g} else {GATE_Q:g}"),
    q_of=lambda h: float("nan"),  # never used: the gate needs N too
    source=f"{SOURCE}: leave-one-language-out recovery 0.90 over nine languages, 0.96 on "
           "Python/PHP/JavaScript when fitted on Go/Java/Ruby; never below BM25 on the 39 "
           "benchmark corpora",
    q_of_stats=q_gate_of_stats,
    explain=explain_gate,
))
