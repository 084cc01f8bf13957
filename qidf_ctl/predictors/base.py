"""What a q predictor is, the registry that names them, and the range q is clipped to.

Predictors register themselves by name when their module is imported (the package
``__init__`` imports each one), so a new one is added beside the others and compared by
benchmark, with no import cycle.

q is clipped to [Q_MIN, Q_MAX] = [0.05, 1]: 0.05 is the smallest q the paper reports (its Go
optimum) and nothing below it showed a gain, while q -> 0 turns the IDF into the raw odds;
q > 1 would damp rare terms below BM25, which no corpus wanted (natural-language text sits
at q ~ 1), so no predictor goes there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qidf_ctl.errors import UsageError
from qidf_ctl.stats.densities import DENSITIES

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats

Q_MIN = 0.05
Q_MAX = 1.0
DEFAULT_PREDICTOR = "qidf-gate"
# Where q-log adds nothing, the peers benchmark found built-in settings that beat default
# BM25 (tuned k1/b on prose): say where the numbers are (docs/peers.md).
BUILTIN_HINT = ("with judged queries, tuned k1/b or another built-in similarity can beat "
                "default BM25 (docs/peers.md)")


def clip_q(q: float) -> float:
    """q inside [Q_MIN, Q_MAX], rounded to 0.01 (finer than any predictor's accuracy)."""
    return round(min(Q_MAX, max(Q_MIN, q)), 2)


@dataclass(frozen=True)
class Predictor:
    """A named map from a field's statistics to q (before clipping)."""

    name: str
    density: str  # a key of stats.densities.DENSITIES: the one it reads
    formula: str
    q_of: Callable[[float], float]
    source: str
    # Predictors that need more than one density (e.g. the corpus size) read the whole stats.
    q_of_stats: Callable[[FieldStats], float] | None = None
    # A predictor that decides on more than the density says why itself (None: the default
    # reason, from the density and q).
    explain: Callable[[FieldStats, float], str | None] | None = None


PREDICTORS: dict[str, Predictor] = {}


def register(predictor: Predictor) -> Predictor:
    if predictor.density not in DENSITIES:
        raise ValueError(f"unknown density {predictor.density!r} for {predictor.name!r}")
    PREDICTORS[predictor.name] = predictor
    return predictor


def get(name: str) -> Predictor:
    try:
        return PREDICTORS[name]
    except KeyError:
        raise UsageError(f"unknown predictor {name!r} (known: {', '.join(sorted(PREDICTORS))})"
                         ) from None


def describe(name: str = DEFAULT_PREDICTOR) -> dict[str, str]:
    """Which predictor, formula and density definition a report is read with."""
    p = get(name)
    return {"name": p.name, "formula": p.formula, "clipped_to": f"[{Q_MIN}, {Q_MAX}]",
            "density": p.density, "definition": DENSITIES[p.density]}
