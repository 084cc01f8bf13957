"""The q-logarithmic IDF: the one place the formula lives on the Python side.

ln_q(x) = (x^(1-q) - 1) / (1 - q) is the Tsallis q-logarithm. At q = 1 it is ln(x), so the
``lucene`` form below is Lucene's BM25 IDF exactly; q < 1 lets rare terms (small df) weigh
more as a power law. The Java plugin has its own copy, and both are checked against the
shared vectors in ``tests/vectors/qlog_idf.json``.

We write ln_q as expm1((1-q) ln x) / (1-q): algebraically identical, and free of the 0/0
cancellation that the textbook form suffers when q is within ~1e-8 of 1.
"""

from __future__ import annotations

import math
from enum import Enum

Q_MIN = 0.0
Q_MAX = 2.0


class IdfForm(str, Enum):
    """Which odds the q-logarithm is applied to.

    ``lucene``: ln_q(1 + odds), always positive, equals Lucene's BM25 IDF at q = 1 (default).
    ``rsj``: max(0, ln_q(odds)), the paper's Robertson-Sparck Jones form; floored at 0
    because engines reject negative scores (it is negative for terms in > N/2 documents).
    """

    LUCENE = "lucene"
    RSJ = "rsj"


class InvalidParameter(ValueError):
    """A similarity parameter outside its documented domain."""


def validate_q(q: object) -> float:
    """Return q as a float, or raise InvalidParameter naming the allowed range."""
    try:
        value = float(q)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidParameter(
            f"q must be a number in [{Q_MIN:g}, {Q_MAX:g}], got {q!r}"
        ) from None
    if not math.isfinite(value) or not Q_MIN <= value <= Q_MAX:
        raise InvalidParameter(f"q must be a finite number in [{Q_MIN:g}, {Q_MAX:g}], got {q!r}")
    return value


def ln_q(x: float, q: float) -> float:
    """Tsallis q-logarithm of x > 0."""
    if x <= 0.0:
        raise InvalidParameter(f"ln_q needs x > 0, got {x!r}")
    one_minus_q = 1.0 - q
    log_x = math.log(x)
    if one_minus_q == 0.0:
        return log_x
    return math.expm1(one_minus_q * log_x) / one_minus_q


def rsj_odds(doc_count: float, doc_freq: float) -> float:
    """(N - n + 0.5) / (n + 0.5): the Robertson-Sparck Jones odds BM25 builds on."""
    return (doc_count - doc_freq + 0.5) / (doc_freq + 0.5)


def idf(q: float, doc_count: float, doc_freq: float, form: IdfForm | str = IdfForm.LUCENE) -> float:
    """q-log IDF of a term in ``doc_freq`` of ``doc_count`` documents."""
    form = IdfForm(form)
    odds = rsj_odds(doc_count, doc_freq)
    if form is IdfForm.LUCENE:
        return ln_q(1.0 + odds, q)
    return max(0.0, ln_q(odds, q))
