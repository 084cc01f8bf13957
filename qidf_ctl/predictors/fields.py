"""A predicted q for every text field of an index: one pass over the index measures them all,
then each field is predicted on its own statistics (and the query sample analysed with that
field's analyzer). Code-search indices hold several text fields (code, docstrings, paths,
commit messages), and what suits one may not suit another."""

from __future__ import annotations

from collections.abc import Sequence

from qidf_ctl.cluster import Cluster, describe_index
from qidf_ctl.predictors.base import DEFAULT_PREDICTOR, QueryKind
from qidf_ctl.predictors.prediction import Prediction, check_query_kind, predict, sample_for
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.stats import index_stats
from qidf_ctl.stats.query_sample import QuerySample


def predict_fields(
    cluster: Cluster,
    index: str,
    fields: Sequence[str] | None = None,
    sample: int | None = None,
    *,
    seed: int = 0,
    exact: bool = False,
    predictor: str = DEFAULT_PREDICTOR,
    queries: QuerySample | None = None,
    query_kind: QueryKind | str | None = None,
    bar: BarFactory = no_bar,
    progress: Progress = quiet,
) -> list[Prediction]:
    """One ``Prediction`` per field of ``fields`` (default: every text field), in the order
    ``qidf stats`` lists them. Every text field is read in one pass; a subset is read field
    by field; one field is ``predict_for_index``'s."""
    p, kind = check_query_kind(predictor, query_kind)
    description = describe_index(cluster, index)
    every = description.measured_fields(None)
    names = every if fields is None else [description.check_text_field(f) for f in fields]
    if len(names) == 1:
        from qidf_ctl import predictors  # the package's name for it, as callers patch it

        return [predictors.predict_for_index(
            cluster, index, names[0], sample, seed=seed, exact=exact, predictor=predictor,
            queries=queries, query_kind=kind, bar=bar, progress=progress)]
    progress(f"measuring {index} field{'s' if len(names) > 1 else ''} {', '.join(names)}")
    if sorted(names) == every:
        measured = [index_stats(cluster, index, sample=sample, seed=seed, exact=exact, bar=bar)]
    else:
        measured = [index_stats(cluster, index, field=f, sample=sample, seed=seed, exact=exact,
                                bar=bar) for f in names]
    found: list[Prediction] = []
    for result in measured:
        for field_stats in result.fields:
            sampled = sample_for(p, cluster, result, field_stats, queries, bar, progress)
            found.append(predict(field_stats, predictor, index=result.index, queries=sampled,
                                 query_kind=kind))
    order = {n: i for i, n in enumerate(names)}
    return sorted(found, key=lambda pr: order[pr.field])


def for_default(predictions: Sequence[Prediction]) -> tuple[Prediction, str]:
    """The one q for ``index.similarity.default``, which scores every field that names no
    similarity of its own: the prediction of the field holding the most tokens (its terms
    weigh most in the scores), and a sentence saying so and what the other fields would
    want. One field: its own prediction."""
    if len(predictions) == 1:
        return predictions[0], ""
    tokens = {p.field: float(p.statistics.get("total_tokens") or 0.0) for p in predictions}
    total = sum(tokens.values()) or 1.0
    chosen = max(predictions, key=lambda p: (tokens[p.field], -p.q))
    others = [p for p in predictions if p is not chosen]
    if all(p.q == chosen.q for p in others):
        return chosen, f"every field predicts q {chosen.q:g}"
    wants = ", ".join(f"{p.field} {_q(p.q)}" for p in others)
    return chosen, (f"q {chosen.q:g} from field {chosen.field}, which holds "
                    f"{tokens[chosen.field] / total:.0%} of the text fields' tokens; the "
                    f"others would want: {wants}")


def _q(q: float) -> str:
    return "BM25 (q = 1)" if q == 1.0 else f"q {q:g}"

