"""The paper's power-law IDF baseline as a Painless scripted similarity.

Our reading of "power-law IDF rescaling" (the paper's ``idf_gamma``; its exact definition is
not in what we could read): BM25 with its IDF raised to a power, ``idf(t) ** gamma`` with
Lucene's ``idf = ln(1 + (N - n + 0.5) / (n + 0.5))``, and BM25's own term-frequency part.
gamma > 1 stretches rare terms away from common ones, as q < 1 does, but multiplicatively
in the log-odds instead of as a Box-Cox transform of the odds. The IDF is positive, so
the score is non-negative, non-decreasing in tf and non-increasing in length, as the
engines require. The scripts get no params: only validated finite numbers, formatted by
the product's ``_literal``, reach the source.
"""

from __future__ import annotations

import math
from typing import Any

from qidf_ctl.formula import InvalidParameter
from qidf_ctl.similarity import QlogParams
from qidf_ctl.similarity.painless import _literal, score_script_source

GAMMA_MAX = 10.0


def idf_gamma_weight_source(gamma: float, k1: float, legacy: bool) -> str:
    if not (math.isfinite(gamma) and 0.0 < gamma <= GAMMA_MAX):
        raise InvalidParameter(f"gamma must be in (0, {GAMMA_MAX:g}], got {gamma!r}")
    factor = f" * {_literal(k1 + 1.0)}" if legacy else ""
    return (
        f"// qidf peers: BM25 with idf^gamma, gamma={gamma:g}\n"
        "double N = (double) field.docCount; double n = (double) term.docFreq; "
        "double idf = Math.log(1.0 + (N - n + 0.5) / (n + 0.5)); "
        f"return query.boost * Math.pow(idf, {_literal(gamma)}){factor};"
    )


def idf_gamma_similarity(gamma: float, k1: float, b: float, legacy: bool) -> dict[str, Any]:
    """The value of ``index.similarity.default``: BM25 with ``idf ** gamma``."""
    params = QlogParams(1.0, k1, b)  # validates k1 and b; the tf part is BM25's own
    return {
        "type": "scripted",
        "weight_script": {"source": idf_gamma_weight_source(gamma, params.k1, legacy)},
        "script": {"source": score_script_source(params)},
    }
