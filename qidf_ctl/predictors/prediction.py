"""A predicted q for one field, with the statistics and the reason behind it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index
from qidf_ctl.errors import UsageError
from qidf_ctl.predictors.base import (
    DEFAULT_PREDICTOR,
    PREDICTORS,
    Q_MAX,
    Q_MIN,
    Predictor,
    QueryKind,
    clip_q,
    get,
    parse_query_kind,
)
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.stats import FieldStats, IndexStats, index_stats
from qidf_ctl.stats.fields import finite
from qidf_ctl.stats.query_sample import QuerySample, with_analysis


@dataclass
class Prediction:
    """A predicted q with the statistics behind it.

    ``evidence`` holds every statistic the predictor read, keyed, each with its own name and
    definition; ``ambiguous`` says the statistics did not clearly point either way (q is then
    1, BM25); ``queries`` describes the query sample, when one was given; ``query_kind`` is
    what the user stated the queries are (``--queries-are``) and ``query_kind_use`` how the
    predictor read it (``Decision.query_kind_use``).
    """

    q: float
    q_formula: float  # before clipping and rounding
    predictor: str
    formula: str
    reason: str
    ambiguous: bool
    evidence: dict[str, dict[str, Any]]
    index: str
    field: str
    queries: dict[str, Any] | None = None
    statistics: dict[str, Any] = dataclasses.field(default_factory=dict)
    query_kind: str | None = None
    query_kind_use: str | None = None

    @property
    def clipped(self) -> bool:
        return not Q_MIN <= self.q_formula <= Q_MAX

    def as_dict(self) -> dict[str, Any]:
        """Strict JSON: NaN (a statistic that could not be measured) becomes null."""
        return finite({**self.__dict__, "clipped": self.clipped, "range": [Q_MIN, Q_MAX]})

    def record(self) -> dict[str, Any]:
        """What ``apply --q auto`` stores next to the previous settings: enough to tell later
        why this q was chosen and whether the corpus has drifted since."""
        return {"prediction": {
            **{k: v for k, v in self.as_dict().items() if k != "statistics"},
            "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "statistics": self.statistics,
        }}


_KEPT = ("mode", "documents", "vocabulary", "total_tokens", "avg_field_length", "densities",
         "intervals", "sampled_documents", "engine_densities", "splits_identifiers",
         "hapax_terms", "source_shape")


def check_query_kind(predictor: str, query_kind: QueryKind | str | None
            ) -> tuple[Predictor, QueryKind | None]:
    """The predictor and the stated query kind, refused where that predictor ignores it."""
    p = get(predictor)
    kind = parse_query_kind(query_kind)
    if kind is not None and not p.reads_query_kind:
        readers = ", ".join(sorted(n for n, r in PREDICTORS.items() if r.reads_query_kind))
        raise UsageError(f"predictor {p.name} does not read a stated query kind "
                         f"(--queries-are, queries_are): drop it, or use {readers}")
    return p, kind


def predict(
    field_stats: FieldStats, predictor: str = DEFAULT_PREDICTOR, index: str = "",
    queries: QuerySample | None = None, query_kind: QueryKind | str | None = None,
) -> Prediction:
    """q from one field's statistics (and a query sample, for predictors that read one;
    ``query_kind``: what the user states the queries are, for predictors that read it)."""
    p, kind = check_query_kind(predictor, query_kind)
    decision = (p.decide(field_stats, queries, kind) if p.reads_query_kind
                else p.decide(field_stats, queries))
    summary = field_stats.as_dict()
    return Prediction(
        q=clip_q(decision.q), q_formula=decision.q, predictor=p.name, formula=p.formula,
        reason=decision.reason, ambiguous=decision.ambiguous,
        evidence={k: e.as_dict() for k, e in decision.evidence.items()},
        index=index, field=field_stats.field,
        queries=queries.as_dict() if queries is not None else None,
        statistics={k: summary[k] for k in _KEPT if summary.get(k) not in (None, {})},
        query_kind=kind.value if kind is not None else None,
        query_kind_use=decision.query_kind_use,
    )


def sample_for(p: Predictor, cluster: Cluster, result: IndexStats, field_stats: FieldStats,
               queries: QuerySample | None, bar: BarFactory = no_bar,
               progress: Progress = quiet) -> QuerySample | None:
    """The query sample as predictor ``p`` reads it for one measured field: analysed with
    that field's analyzer, and measured on the index, where ``p`` does either."""
    if queries is not None and p.analyses_queries:
        progress(f"analysing {min(len(queries.texts), queries.shape.texts)} sampled queries "
                 f"with the analyzer of {field_stats.field}")
        queries = with_analysis(queries, cluster, result.index, field_stats.field,
                                result.shards)
    if queries is not None and p.measure is not None:
        queries = p.measure(cluster, result.index, field_stats, queries, bar)
    return queries


def predict_for_index(
    cluster: Cluster,
    index: str,
    field: str | None = None,
    sample: int | None = None,
    *,
    seed: int = 0,
    exact: bool = False,
    predictor: str = DEFAULT_PREDICTOR,
    queries: QuerySample | None = None,
    query_kind: QueryKind | str | None = None,
    bar: BarFactory = no_bar,
    progress: Progress = quiet,
) -> Prediction:
    """Measure ``field`` (the index's only text field when None) and predict q for it.

    ``queries``: an unlabeled query sample (``stats.query_sample``). ``bar`` draws progress
    bars for the long reads; ``progress`` gets one message per step, like
    ``install.apply``'s, for callers that show a spinner instead. ``query_kind``: what the
    user states the queries are (``QueryKind``), read where no sample shows it.
    """
    p, kind = check_query_kind(predictor, query_kind)
    if field is None:
        field = describe_index(cluster, index).text_field(None)
    progress(f"measuring {index} field {field}")
    result = index_stats(cluster, index, field=field, sample=sample, seed=seed,
                         exact=exact, bar=bar)
    queries = sample_for(p, cluster, result, result.fields[0], queries, bar, progress)
    # The reason is the result, not progress: callers print it once (apply --q auto did
    # twice).
    return predict(result.fields[0], predictor, index=result.index, queries=queries,
                   query_kind=kind)
