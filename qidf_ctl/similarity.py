"""Pure functions: similarity parameters -> index-settings dicts, and back.

Nothing here talks to a cluster. The Painless scripts get no params, so the numbers are
baked into the source: only validated, finite floats formatted by ``_literal`` ever reach it.
The first line of each rendered script is a marker comment that lets ``parse`` recognise
(and ``qidf show`` describe) an installed q-log similarity from the settings alone.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from .qlog import IdfForm, InvalidParameter, validate_q

SIMILARITY_NAME = "default"
PLUGIN_TYPE = "qlog_bm25"
MARKER = "qidf q-log BM25"


class Mode(str, Enum):
    """How the similarity is installed: Painless scripted similarity or the native plugin."""

    SCRIPT = "script"
    PLUGIN = "plugin"


@dataclass(frozen=True)
class QlogParams:
    """The similarity's parameters, validated on construction."""

    q: float
    k1: float = 1.2
    b: float = 0.75
    form: IdfForm = IdfForm.LUCENE

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", validate_q(self.q))
        try:
            k1, b = float(self.k1), float(self.b)
        except (TypeError, ValueError):
            raise InvalidParameter(f"k1 and b must be numbers, got {self.k1!r}, {self.b!r}") \
                from None
        if not math.isfinite(k1) or k1 < 0:
            raise InvalidParameter(f"k1 must be a finite number >= 0, got {self.k1!r}")
        if not math.isfinite(b) or not 0 <= b <= 1:
            raise InvalidParameter(f"b must be a number in [0, 1], got {self.b!r}")
        try:
            form = IdfForm(self.form)
        except ValueError:
            raise InvalidParameter(f"form must be 'lucene' or 'rsj', got {self.form!r}") from None
        object.__setattr__(self, "k1", k1)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "form", form)

    def describe(self) -> str:
        return f"q={self.q:g} form={self.form.value} k1={self.k1:g} b={self.b:g}"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["form"] = self.form.value
        return data


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


def plugin_similarity(params: QlogParams) -> dict[str, Any]:
    """The value of ``index.similarity.default`` for the native plugin."""
    return {
        "type": PLUGIN_TYPE,
        "q": params.q,
        "k1": params.k1,
        "b": params.b,
        "form": params.form.value,
    }


def render(params: QlogParams, mode: Mode, legacy: bool) -> dict[str, Any]:
    sim = plugin_similarity(params) if mode is Mode.PLUGIN else scripted_similarity(params, legacy)
    return {"index": {"similarity": {SIMILARITY_NAME: sim}}}


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}: the form in which settings are compared and updated."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, path))
        else:
            flat[path] = value
    return flat


_MARK_RE = re.compile(
    rf"// {re.escape(MARKER)}: q=(?P<q>\S+) form=(?P<form>\S+) k1=(?P<k1>\S+) b=(?P<b>\S+)"
    r" legacy=(?P<legacy>true|false)"
)


@dataclass(frozen=True)
class Installed:
    """What ``index.similarity.default`` holds, as qidf understands it."""

    kind: str  # "builtin", "qlog", or "other"
    mode: Mode | None = None
    params: QlogParams | None = None
    legacy: bool | None = None
    raw: dict[str, Any] | None = None

    def describe(self) -> str:
        if self.kind == "builtin":
            extra = {k: v for k, v in (self.raw or {}).items() if k != "type"}
            if extra:
                args = ", ".join(f"{k}={v}" for k, v in sorted(extra.items()))
                return f"built-in BM25 with {args}"
            return "built-in default similarity (BM25)"
        if self.kind == "qlog" and self.params is not None and self.mode is not None:
            how = "Painless scripted similarity" if self.mode is Mode.SCRIPT else "qidf plugin"
            return f"q-log BM25 {self.params.describe()} via {how}"
        return f"custom similarity not installed by qidf: {self.raw}"


def parse(default_similarity: dict[str, Any] | None) -> Installed:
    """Recognise the installed default similarity from its (nested) settings."""
    if not default_similarity:
        return Installed("builtin")
    sim_type = default_similarity.get("type")
    if sim_type == PLUGIN_TYPE:
        params = QlogParams(
            q=float(default_similarity.get("q", 1.0)),
            k1=float(default_similarity.get("k1", 1.2)),
            b=float(default_similarity.get("b", 0.75)),
            form=IdfForm(default_similarity.get("form", "lucene")),
        )
        return Installed("qlog", Mode.PLUGIN, params, None, default_similarity)
    if sim_type == "scripted":
        source = str((default_similarity.get("weight_script") or {}).get("source", ""))
        match = _MARK_RE.search(source)
        if match:
            params = QlogParams(float(match["q"]), float(match["k1"]), float(match["b"]),
                                IdfForm(match["form"]))
            expected = scripted_similarity(params, match["legacy"] == "true")
            if flatten(expected) == flatten(default_similarity):
                return Installed("qlog", Mode.SCRIPT, params, match["legacy"] == "true",
                                 default_similarity)
    if sim_type == "BM25":
        return Installed("builtin", raw=default_similarity)
    return Installed("other", raw=default_similarity)
