"""Label-free q predictors, by name, from a field's statistics (and an optional query
sample).

Each predictor lives in its own module and registers itself on import; importing this
package registers them all. ``qidf-content`` is the default.
"""

from qidf_ctl.predictors import content, gate, measured, paper  # noqa: F401  (registration)
from qidf_ctl.predictors.base import (
    DEFAULT_PREDICTOR,
    PREDICTORS,
    Q_MAX,
    Q_MIN,
    Decision,
    Evidence,
    Predictor,
    QueryKind,
    clip_q,
    describe,
    get,
    parse_query_kind,
    register,
)
from qidf_ctl.predictors.prediction import (
    Prediction,
    check_query_kind,
    predict,
    predict_for_index,
)

__all__ = ["DEFAULT_PREDICTOR", "PREDICTORS", "Q_MAX", "Q_MIN", "Decision", "Evidence",
           "Prediction", "Predictor", "QueryKind", "check_query_kind", "clip_q", "describe", "get",
           "parse_query_kind", "predict", "predict_for_index", "register"]
