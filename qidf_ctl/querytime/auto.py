"""``--q auto`` for query time: the default predictor's q from the index's own statistics (no
labels), and one line saying what to do when a search-only user may not read them."""

from __future__ import annotations

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.stats.query_sample import QuerySample


def predicted_q(cluster: Cluster, index: str, field: str,
                queries: QuerySample | None = None) -> tuple[float, str]:
    """q and the predictor's reason. Measuring the index takes monitor privileges that query
    time itself does not need: a refusal says to pass a number instead."""
    from qidf_ctl.predictors import predict_for_index  # predicting reads stats; only for auto

    try:
        prediction = predict_for_index(cluster, index, field, queries=queries)
    except ClusterError as exc:
        if exc.status != 403:
            raise
        raise ClusterError(
            f"--q auto reads the index's statistics, which these credentials may not ({exc}): "
            "pass --q with a number (an admin's `qidf predict` gives one)", status=403) from None
    return prediction.q, prediction.reason
