"""qidf-gate, the default until the large-prose study: BM25 unless the size-adjusted hapax
density shows rare-identifier material. Kept as an option (``--predictor qidf-gate``) for
comparison; it is not safe on large natural-language indices.

q = 1 when the field's analyzer already splits identifiers (``analyzer_probe``). Otherwise
x = types_per_token * (N / 10,000) ** GATE_EXPONENT, the df = 1 terms per token the field
would have at 10,000 documents, and q = 1 when x < GATE_THRESHOLD, else GATE_Q. The
exponent is the slope of the density over size on nested Go subsets; prose indices of 50K+
documents keep more df = 1 terms than that slope assumes, so their x crosses the gate and
they lose (benchmarks/retrieval/predictor.md, "Prose at production size").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qidf_ctl.predictors.base import BUILTIN_HINT, Decision, Predictor, register
from qidf_ctl.predictors.evidence import density, plain

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.query_sample import QuerySample

SOURCE = "fitted on the retrieval benchmark's code corpora (benchmarks/retrieval/predictor.md)"

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


def decide(field_stats: FieldStats, queries: QuerySample | None) -> Decision:
    del queries
    h = density(field_stats, GATE_DENSITY)
    if field_stats.splits_identifiers:
        return Decision(GATE_Q_SAFE, (
            f"the analyzer already splits identifiers ({', '.join(field_stats.splits_identifiers)})"
            f" -> q {GATE_Q_SAFE:.2f}: rare identifiers are no longer one-off tokens, BM25 "
            f"stays; {BUILTIN_HINT}"), evidence={GATE_DENSITY: h})
    x = size_adjusted(h.value, field_stats.documents)
    q = q_gate(h.value, field_stats.documents)
    side = "below" if q == GATE_Q_SAFE else "at or above"
    evidence = {GATE_DENSITY: h, "x": plain(
        x, "size-adjusted hapax terms per token",
        f"hapax terms per token * (N / {GATE_REF_DOCS:,.0f})^{GATE_EXPONENT:g}")}
    return Decision(q, f"size-adjusted hapax terms per token x = {x:.4f} ({h.name} "
                       f"{h.value:.4f} at N = {field_stats.documents:,.0f}), {side} the gate "
                       f"{GATE_THRESHOLD:g} -> q {q:.2f}", evidence=evidence)


GATED = register(Predictor(
    name="qidf-gate",
    formula=(f"q = {GATE_Q_SAFE:g} if the analyzer splits identifiers; else "
             f"x = h_types * (N / {GATE_REF_DOCS:,.0f})^{GATE_EXPONENT:g} (h_types: hapax "
             f"terms per token); q = {GATE_Q_SAFE:g} if x < {GATE_THRESHOLD:g} else {GATE_Q:g}"),
    source=f"{SOURCE}; the default before the large-prose study, loses on prose of 50K+ "
           "documents",
    decide=decide,
))
