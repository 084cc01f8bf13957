"""Label-free q predictors, by name, from a field's hapax density.

The paper predicts q from one corpus statistic: q = 1 - 7.28 * h_tok. Its definition of h_tok
is not public; ``stats`` measures four candidates and each predictor names the one it reads.
"paper" reads the share of token occurrences whose term has df = 1: on real code under a
generic analyzer that reading gives the paper's formula a recovery close to the paper's own,
while the share of the vocabulary (0.4-0.7 on code) would make every q negative. Predictors
are registered by name so a better one can be added beside it and compared by benchmark.

q is clipped to [Q_MIN, Q_MAX] = [0.05, 1]: 0.05 is the smallest q the paper reports (its Go
optimum) and nothing below it showed a gain, while q -> 0 turns the IDF into the raw odds;
q > 1 would damp rare terms below BM25, which no corpus in the paper wanted (natural-language
text and Python sit at q ~ 1), so the predictor never goes there.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from . import stats
from .cluster import Cluster
from .errors import QidfError, UsageError
from .progress import Progress, quiet
from .stats_read import choose_fields, read_facts
from .stats_sample import DENSITIES

Q_MIN = 0.05
Q_MAX = 1.0
DEFAULT_PREDICTOR = "qidf-gate"  # registered by predictors_fitted, imported at the end


@dataclass(frozen=True)
class Predictor:
    """A named map from one hapax density to q (before clipping)."""

    name: str
    density: str  # a key of stats_sample.DENSITIES
    formula: str
    q_of: Callable[[float], float]
    source: str
    # Predictors that need more than one density (e.g. the corpus size) read the whole stats.
    q_of_stats: Callable[[stats.FieldStats], float] | None = None
    # A predictor that decides on more than the density says why itself (None: the default
    # reason, from the density and q).
    explain: Callable[[stats.FieldStats, float], str | None] | None = None


PREDICTORS: dict[str, Predictor] = {}


def register(predictor: Predictor) -> Predictor:
    if predictor.density not in DENSITIES:
        raise ValueError(f"unknown density {predictor.density!r} for {predictor.name!r}")
    PREDICTORS[predictor.name] = predictor
    return predictor


register(Predictor(
    name="paper", density="tokens", formula="q = 1 - 7.28 * h_tok",
    q_of=lambda h: 1.0 - 7.28 * h,
    source="the paper's label-free predictor (leave-one-language-out recovery 0.72); h_tok "
           "read as the share of token occurrences whose term has df = 1",
))


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


@dataclass
class Prediction:
    """A predicted q with the statistics behind it."""

    q: float
    q_formula: float  # before clipping and rounding
    predictor: str
    formula: str
    density: str
    definition: str
    h_tok: float
    reason: str
    index: str
    field: str
    statistics: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def clipped(self) -> bool:
        return not Q_MIN <= self.q_formula <= Q_MAX

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "clipped": self.clipped, "range": [Q_MIN, Q_MAX]}

    def record(self) -> dict[str, Any]:
        """What ``apply --q auto`` stores next to the previous settings: enough to tell later
        why this q was chosen and whether the corpus has drifted since."""
        return {"prediction": {
            **{k: v for k, v in self.as_dict().items() if k != "statistics"},
            "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "statistics": self.statistics,
        }}


def reason(h_tok: float, q: float, q_formula: float) -> str:
    """One line a human reads next to the number."""
    if q >= 0.9:
        why = "close to 1: BM25 is already right here"
    elif q <= 0.4:
        why = "identifier-heavy corpus: rare terms deserve much more weight than BM25 gives"
    else:
        why = "some identifier-heavy material: rare terms deserve more weight than BM25 gives"
    clip = f" (formula gives {q_formula:.2f}, clipped to [{Q_MIN}, {Q_MAX:g}])" \
        if not Q_MIN <= q_formula <= Q_MAX else ""
    return f"hapax density {h_tok:.3f} -> q {q:.2f}{clip}: {why}"


def predict(
    field_stats: stats.FieldStats, predictor: str = DEFAULT_PREDICTOR, index: str = ""
) -> Prediction:
    """q from one field's statistics; rounded to 0.01, finer than any predictor's accuracy."""
    p = get(predictor)
    h = field_stats.densities.get(p.density, float("nan"))
    if not math.isfinite(h):
        raise QidfError(f"field {field_stats.field!r} has no tokens: no density to predict from")
    q_formula = p.q_of_stats(field_stats) if p.q_of_stats else p.q_of(h)
    q = round(min(Q_MAX, max(Q_MIN, q_formula)), 2)
    why = (p.explain(field_stats, q) if p.explain else None) or reason(h, q, q_formula)
    summary = field_stats.as_dict()
    kept = ("mode", "documents", "vocabulary", "total_tokens", "avg_field_length",
            "densities", "intervals", "sampled_documents", "engine_densities",
            "splits_identifiers")
    return Prediction(
        q=q, q_formula=q_formula, predictor=p.name, formula=p.formula, density=p.density,
        definition=DENSITIES[p.density], h_tok=h, reason=why,
        index=index, field=field_stats.field,
        statistics={k: summary[k] for k in kept if summary.get(k) not in (None, {})},
    )


def predict_for_index(
    cluster: Cluster,
    index: str,
    field: str | None = None,
    sample: int | None = None,
    *,
    seed: int = 0,
    exact: bool = False,
    predictor: str = DEFAULT_PREDICTOR,
    bar: stats.BarFactory = stats.no_bar,
    progress: Progress = quiet,
) -> Prediction:
    """Measure ``field`` (the index's only text field when None) and predict q for it.

    ``bar`` draws progress bars for the long reads; ``progress`` gets one message per step,
    like ``install.apply``'s, for callers that show a spinner instead.
    """
    get(predictor)
    if field is None:
        facts = read_facts(cluster, index)
        fields = choose_fields(facts, None)
        if len(fields) > 1:
            raise QidfError(f"{facts.index!r} has several text fields ({', '.join(fields)}): "
                             "name the one queries search with --field")
        field = fields[0]
    progress(f"measuring the hapax density of {index} field {field}")
    result = stats.index_stats(cluster, index, field=field, sample=sample, seed=seed,
                               exact=exact, bar=bar)
    prediction = predict(result.fields[0], predictor, index=result.index)
    progress(prediction.reason)
    return prediction


# The fitted predictor (qidf-gate, the default) registers itself.
from . import predictors_fitted  # noqa: E402,F401
