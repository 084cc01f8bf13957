"""``--q auto`` for query time: the default predictor's q from the index's own statistics (no
labels), for one field or each of several, and one line saying what to do when a
search-only user may not read them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.stats.query_sample import QuerySample

REFUSED = ("--q auto reads the index's statistics, which these credentials may not ({}): "
           "pass --q with a number (an admin's `qidf predict` gives one)")


@contextmanager
def _refusal_says_what_to_do() -> Iterator[None]:
    """Measuring the index takes monitor privileges that query time itself does not need: a
    refusal says to pass a number instead."""
    try:
        yield
    except ClusterError as exc:
        if exc.status != 403:
            raise
        raise ClusterError(REFUSED.format(exc), status=403) from None


def predicted_q(cluster: Cluster, index: str, field: str,
                queries: QuerySample | None = None) -> tuple[float, str]:
    """q and the predictor's reason (a refusal to measure says to pass a number)."""
    from qidf_ctl.predictors import predict_for_index  # predicting reads stats; only for auto

    with _refusal_says_what_to_do():
        prediction = predict_for_index(cluster, index, field, queries=queries)
    return prediction.q, prediction.reason


def predicted_qs(cluster: Cluster, index: str, fields: Sequence[str],
                 queries: QuerySample | None = None) -> dict[str, tuple[float, str]]:
    """Each field's q and reason (one pass over the index for all of them)."""
    if len(fields) == 1:
        return {fields[0]: predicted_q(cluster, index, fields[0], queries)}
    from qidf_ctl.predictors.fields import predict_fields  # reads stats; only for auto

    with _refusal_says_what_to_do():
        found = predict_fields(cluster, index, fields, queries=queries)
    return {p.field: (p.q, p.reason) for p in found}
