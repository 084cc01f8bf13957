"""What a q predictor is, the registry that names them, and the range q is clipped to.

Predictors register themselves by name when their module is imported (the package
``__init__`` imports each one), so a new one is added beside the others and compared by
benchmark, with no import cycle.

A predictor maps a field's statistics, and optionally statistics of a sample of queries
(or, without one, what the user states the queries are: ``QueryKind``), to a ``Decision``:
q, one line saying why, whether the evidence was ambiguous, and every statistic it read
under its own name and definition.

q is clipped to [Q_MIN, Q_MAX] = [0.05, 1]: 0.05 is the smallest q the paper reports (its Go
optimum) and nothing below it showed a gain, while q -> 0 turns the IDF into the raw odds;
q > 1 would damp rare terms below BM25, which no corpus wanted (natural-language text sits
at q ~ 1), so no predictor goes there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from qidf_ctl.errors import UsageError

if TYPE_CHECKING:
    from qidf_ctl.cluster import Cluster
    from qidf_ctl.progress import BarFactory
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.query_sample import QuerySample

# A measurement some predictors take on the index before deciding (cluster, index, field's
# statistics, the query sample, progress bars) -> the sample with the measurement attached.
Measure = Callable[["Cluster", str, "FieldStats", "QuerySample", "BarFactory"], "QuerySample"]

Q_MIN = 0.05
Q_MAX = 1.0
DEFAULT_PREDICTOR = "qidf-content"
# Where q-log adds nothing, the peers benchmark found built-in settings that beat default
# BM25 (tuned k1/b on prose): say where the numbers are (docs/explanation/peers.md).
BUILTIN_HINT = ("with judged queries, tuned k1/b or another built-in similarity can beat "
                "default BM25 (docs/explanation/peers.md)")


class QueryKind(str, Enum):
    """What the user says the index is searched with (``--queries-are``), when no query
    sample shows it: a claim, weighed below a sample's evidence."""

    CODE = "code"
    TEXT = "text"


def parse_query_kind(value: QueryKind | str | None) -> QueryKind | None:
    """``code`` or ``text`` (any case) as a QueryKind; None stays None."""
    if value is None or isinstance(value, QueryKind):
        return value
    try:
        return QueryKind(str(value).strip().lower())
    except ValueError:
        raise UsageError(f"queries are 'code' or 'text', got {value!r}") from None


def clip_q(q: float) -> float:
    """q inside [Q_MIN, Q_MAX], rounded to 0.01 (finer than any predictor's accuracy)."""
    return round(min(Q_MAX, max(Q_MIN, q)), 2)


@dataclass(frozen=True)
class Evidence:
    """One statistic a predictor read: its value, its own name and what it counts."""

    value: float
    name: str
    definition: str
    interval: tuple[float, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value if math.isfinite(self.value) else None,
                               "name": self.name, "definition": self.definition}
        if self.interval is not None:
            out["interval"] = list(self.interval)
        return out


@dataclass(frozen=True)
class Decision:
    """A predictor's answer: q before clipping, the one-line reason, and the evidence."""

    q: float
    reason: str
    ambiguous: bool = False
    evidence: dict[str, Evidence] = field(default_factory=dict)
    # How a stated query kind was read: "decided" (it stood in for a query sample);
    # "agrees", "contradicted" or "overruled" (a clear or a mixed sample decided); "not
    # needed" (the field decided alone); None when no kind was stated.
    query_kind_use: str | None = None


@dataclass(frozen=True)
class Predictor:
    """A named map from a field's statistics (and optionally a query sample) to q."""

    name: str
    formula: str
    source: str
    # decide(field_stats, queries) -> Decision; with ``reads_query_kind``, also a third
    # argument, the stated QueryKind or None (predictors that do not read it keep two).
    decide: Callable[..., Decision]
    # Whether a query sample, when given, is also analysed (tokens and df in the field).
    analyses_queries: bool = False
    reads_query_kind: bool = False
    # What the predictor measures on the index with a query sample before ``decide``.
    measure: Measure | None = None


PREDICTORS: dict[str, Predictor] = {}


def register(predictor: Predictor) -> Predictor:
    PREDICTORS[predictor.name] = predictor
    return predictor


def get(name: str) -> Predictor:
    try:
        return PREDICTORS[name]
    except KeyError:
        raise UsageError(f"unknown predictor {name!r} (known: {', '.join(sorted(PREDICTORS))})"
                         ) from None


def describe(name: str = DEFAULT_PREDICTOR) -> dict[str, str]:
    """Which predictor a report is read with, and its rule."""
    p = get(name)
    return {"name": p.name, "formula": p.formula, "clipped_to": f"[{Q_MIN}, {Q_MAX}]",
            "source": p.source}
