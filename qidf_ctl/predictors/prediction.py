"""A predicted q for one field, with the statistics and the reason behind it."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index
from qidf_ctl.errors import QidfError
from qidf_ctl.predictors.base import (
    BUILTIN_HINT,
    DEFAULT_PREDICTOR,
    Q_MAX,
    Q_MIN,
    clip_q,
    get,
)
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.stats import DENSITIES, FieldStats, index_stats


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
        why = f"close to 1: BM25 is already right here; {BUILTIN_HINT}"
    elif q <= 0.4:
        why = "identifier-heavy corpus: rare terms deserve much more weight than BM25 gives"
    else:
        why = "some identifier-heavy material: rare terms deserve more weight than BM25 gives"
    clip = f" (formula gives {q_formula:.2f}, clipped to [{Q_MIN}, {Q_MAX:g}])" \
        if not Q_MIN <= q_formula <= Q_MAX else ""
    return f"hapax density {h_tok:.3f} -> q {q:.2f}{clip}: {why}"


_KEPT = ("mode", "documents", "vocabulary", "total_tokens", "avg_field_length", "densities",
         "intervals", "sampled_documents", "engine_densities", "splits_identifiers")


def predict(
    field_stats: FieldStats, predictor: str = DEFAULT_PREDICTOR, index: str = ""
) -> Prediction:
    """q from one field's statistics."""
    p = get(predictor)
    h = field_stats.densities.get(p.density, float("nan"))
    if not math.isfinite(h):
        raise QidfError(f"field {field_stats.field!r} has no tokens: no density to predict from")
    q_formula = p.q_of_stats(field_stats) if p.q_of_stats else p.q_of(h)
    q = clip_q(q_formula)
    why = (p.explain(field_stats, q) if p.explain else None) or reason(h, q, q_formula)
    summary = field_stats.as_dict()
    return Prediction(
        q=q, q_formula=q_formula, predictor=p.name, formula=p.formula, density=p.density,
        definition=DENSITIES[p.density], h_tok=h, reason=why,
        index=index, field=field_stats.field,
        statistics={k: summary[k] for k in _KEPT if summary.get(k) not in (None, {})},
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
    bar: BarFactory = no_bar,
    progress: Progress = quiet,
) -> Prediction:
    """Measure ``field`` (the index's only text field when None) and predict q for it.

    ``bar`` draws progress bars for the long reads; ``progress`` gets one message per step,
    like ``install.apply``'s, for callers that show a spinner instead.
    """
    get(predictor)
    if field is None:
        field = describe_index(cluster, index).text_field(None)
    progress(f"measuring the hapax density of {index} field {field}")
    result = index_stats(cluster, index, field=field, sample=sample, seed=seed,
                         exact=exact, bar=bar)
    prediction = predict(result.fields[0], predictor, index=result.index)
    progress(prediction.reason)
    return prediction
