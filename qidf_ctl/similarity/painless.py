"""The Painless scripted similarity: q-log BM25 as two scripts the engine compiles.

The scripts get no params, so the numbers are baked into the source: only validated, finite
floats formatted by ``_literal`` ever reach it. The first line of the weight script is a
marker comment from which ``recognise.parse`` (and ``qidf show``) recover the parameters.
"""

from __future__ import annotations

import math
import re
from typing import Any

from qidf_ctl.formula import IdfForm, InvalidParameter
from qidf_ctl.similarity.params import QlogParams

MARKER = "qidf q-log BM25"

MARK_RE = re.compile(
    rf"// {re.escape(MARKER)}: q=(?P<q>\S+) form=(?P<form>\S+) k1=(?P<k1>\S+) b=(?P<b>\S+)"
    r" legacy=(?P<legacy>true|false)"
)


def _literal(x: float) -> str:
    """A Painless double literal for a validated finite float (repr round-trips exactly)."""
    if not math.isfinite(x):
        raise InvalidParameter(f"refusing to write non-finite number {x!r} into a script")
    text = repr(float(x))
    return text if ("." in text or "e" in text) else text + ".0"


def _lnq_expression(arg: str, q: float) -> str:
    one_minus_q = 1.0 - q
    if one_minus_q == 0.0:
        return f"Math.log({arg})"
    c = _literal(one_minus_q)
    return f"Math.expm1({c} * Math.log({arg})) / {c}"


def weight_script_source(params: QlogParams, legacy: bool) -> str:
    """Painless: query boost times the q-log IDF (times k1 + 1 where the default is legacy)."""
    factor = f" * {_literal(params.k1 + 1.0)}" if legacy else ""
    odds = "(N - n + 0.5) / (n + 0.5)"
    if params.form is IdfForm.LUCENE:
        idf = f"double idf = {_lnq_expression('1.0 + ' + odds, params.q)};"
    else:
        idf = (f"double odds = {odds}; "
               f"double idf = Math.max(0.0, {_lnq_expression('odds', params.q)});")
    return (
        f"// {MARKER}: {params.describe()} legacy={str(legacy).lower()}\n"
        "double N = (double) field.docCount; double n = (double) term.docFreq; "
        f"{idf} return query.boost * idf{factor};"
    )


def score_script_source(params: QlogParams) -> str:
    """Painless: BM25's term-frequency saturation and length normalisation, as Lucene does it."""
    k1, b = _literal(params.k1), _literal(params.b)
    return (
        f"// {MARKER}: tf part\n"
        "double avgdl = (double) field.sumTotalTermFreq / (double) field.docCount; "
        f"double norm = {k1} * ((1.0 - {b}) + {b} * doc.length / avgdl); "
        "return weight * doc.freq / (doc.freq + norm);"
    )


def scripted_similarity(params: QlogParams, legacy: bool) -> dict[str, Any]:
    """The value of ``index.similarity.default`` for the Painless path."""
    return {
        "type": "scripted",
        "weight_script": {"source": weight_script_source(params, legacy)},
        "script": {"source": score_script_source(params)},
    }
