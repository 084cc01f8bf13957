"""One similarity setting: a family, its parameters, and the index settings that install it.

A setting is pure data with a stable text key (the cache and the tables use it). Settings
that rank identically collapse to one key (``canonical``): q-log at q = 1 is BM25 with the
same k1 and b (the q-log IDF at q = 1 is Lucene's; the (k1 + 1) factor of the legacy default
only scales every score), and BM25 at k1 = 1.2, b = 0.75 is the engine's default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from qidf_ctl.similarity import Mode, QlogParams, similarity_value

DEFAULT_K1, DEFAULT_B = 1.2, 0.75
KINDS = ("default", "BM25", "LMDirichlet", "LMJelinekMercer", "DFR", "IB", "DFI", "qlog",
         "idf_gamma")


def num(x: float) -> float:
    """A grid value rounded to 4 significant digits, so keys and scripts stay readable."""
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.4g}")


@dataclass(frozen=True)
class Setting:
    """``kind`` is the engine's similarity type (or ``qlog`` / ``idf_gamma``, the Painless
    ones, or ``default``: the index's built-in BM25); ``params`` its settings, in order."""

    kind: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown similarity kind {self.kind!r}")

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    @property
    def key(self) -> str:
        if not self.params:
            return self.kind
        args = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in self.params)
        return f"{self.kind} {args}"

    def similarity(self, legacy: bool) -> dict[str, Any]:
        """The value of ``index.similarity.default`` ({} = the built-in default)."""
        from qidf_research.peers.scripted import idf_gamma_similarity

        p = dict(self.params)
        if self.kind == "default":
            return {}
        if self.kind == "qlog":
            return similarity_value(QlogParams(p["q"], p["k1"], p["b"]), Mode.SCRIPT, legacy)
        if self.kind == "idf_gamma":
            return idf_gamma_similarity(p["gamma"], p["k1"], p["b"], legacy)
        sim: dict[str, Any] = {"type": self.kind}
        if self.kind in ("DFR", "IB"):
            norm = p["normalization"]
            sim.update({k: v for k, v in p.items() if k not in ("normalization", "c")})
            sim["normalization"] = norm
            if norm != "no":
                sim[NORM_PARAM[norm]] = p["c"]
            return sim
        sim.update(p)
        return sim


# The parameter of each DFR/IB normalization, as OpenSearch names it, and its default.
NORM_PARAM = {"h1": "normalization.h1.c", "h2": "normalization.h2.c",
              "h3": "normalization.h3.c", "z": "normalization.z.z"}
NORM_DEFAULT = {"no": None, "h1": 1.0, "h2": 1.0, "h3": 800.0, "z": 0.3}


def default() -> Setting:
    return Setting("default")


def bm25(k1: float, b: float) -> Setting:
    return canonical(Setting("BM25", (("k1", num(k1)), ("b", num(b)))))


def qlog(q: float, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Setting:
    return canonical(Setting("qlog", (("q", num(q)), ("k1", num(k1)), ("b", num(b)))))


def lm_dirichlet(mu: float) -> Setting:
    return Setting("LMDirichlet", (("mu", num(mu)),))


def lm_jelinek_mercer(lam: float) -> Setting:
    return Setting("LMJelinekMercer", (("lambda", num(lam)),))


def dfr(basic_model: str, after_effect: str, normalization: str,
        c: float | None = None) -> Setting:
    params: tuple[tuple[str, Any], ...] = (("basic_model", basic_model),
                                           ("after_effect", after_effect),
                                           ("normalization", normalization))
    return Setting("DFR", params + _norm_param(normalization, c))


def ib(distribution: str, lam: str, normalization: str, c: float | None = None) -> Setting:
    params: tuple[tuple[str, Any], ...] = (("distribution", distribution), ("lambda", lam),
                                           ("normalization", normalization))
    return Setting("IB", params + _norm_param(normalization, c))


def dfi(measure: str) -> Setting:
    return Setting("DFI", (("independence_measure", measure),))


def idf_gamma(gamma: float, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Setting:
    g = num(gamma)
    if g == 1.0:
        return bm25(k1, b)
    return Setting("idf_gamma", (("gamma", g), ("k1", num(k1)), ("b", num(b))))


def _norm_param(normalization: str, c: float | None) -> tuple[tuple[str, Any], ...]:
    if normalization not in NORM_DEFAULT:
        raise ValueError(f"unknown normalization {normalization!r}")
    if normalization == "no":
        return ()
    value = NORM_DEFAULT[normalization] if c is None else c
    return (("c", num(float(value))),)  # type: ignore[arg-type]


def canonical(s: Setting) -> Setting:
    """The one key among settings that rank identically (see the module docstring)."""
    if s.kind == "qlog" and s.get("q") == 1.0:
        s = Setting("BM25", (("k1", s.get("k1")), ("b", s.get("b"))))
    if s.kind == "BM25" and (s.get("k1"), s.get("b")) == (DEFAULT_K1, DEFAULT_B):
        return default()
    return s
