"""qidf-measured: qidf-content's decision of *whether* to leave BM25, and with a query sample
the q *measured* on the index (``qidf_ctl.measured``) instead of a constant.

Where qidf-content keeps BM25 (an identifier-splitting analyzer, text searched with text, an
ambiguous field or sample, no sample) nothing is measured and the decision is qidf-content's:
prose and every safety case stay as they are. Where it leaves BM25 and a sample is given,
simulated known-item queries made from the sample's own templates are searched at each q of
a short grid through the query-time path (read privileges; the index never changes) and the
q that finds their answers best is chosen (it may be 1). The study behind it:
benchmarks/retrieval/predictor.md, "Measured q".
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from qidf_ctl.errors import ConflictError
from qidf_ctl.measured import measure_q
from qidf_ctl.measured.measure import DEFINITION, NAME
from qidf_ctl.predictors import content
from qidf_ctl.predictors.base import Decision, Evidence, Predictor, register

if TYPE_CHECKING:
    from qidf_ctl.cluster import Cluster
    from qidf_ctl.progress import BarFactory
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.query_sample import QuerySample


def measure(cluster: Cluster, index: str, field_stats: FieldStats, queries: QuerySample,
            bar: BarFactory) -> QuerySample:
    """The measured curve, attached to the sample, only where qidf-content leaves BM25."""
    if content.decide(field_stats, queries).q == 1.0 or not queries.texts:
        return queries
    try:
        m = measure_q(cluster, index, list(queries.texts), field_stats.field, bar=bar)
    except ConflictError as exc:  # already q-log (or another similarity): boosts would stack
        return dataclasses.replace(queries, measured={"skipped": str(exc)})
    return dataclasses.replace(queries, measured=m.as_dict())


def decide(field_stats: FieldStats, queries: QuerySample | None) -> Decision:
    base = content.decide(field_stats, queries)
    measured = queries.measured if queries is not None else None
    if base.q != 1.0 and measured and "skipped" in measured:
        return dataclasses.replace(base, reason=(
            f"{base.reason}; not measured on the index: {measured['skipped']}"))
    if base.q == 1.0 or not measured or not measured.get("simulated"):
        return base
    curve = {float(q): float(v) for q, v in measured["curve"].items()}
    q = float(measured["q"])
    why = base.reason.split(" -> ", 1)[0]
    at_level = curve.get(base.q)
    versus = f", {at_level:.3f} at q {base.q:g}" if at_level is not None else ""
    reason = (f"{why}; {measured['simulated']:,} simulated known-item queries made from the "
              f"sample find their answers best at q {q:g} (NDCG@10 {curve[q]:.3f}{versus}) "
              f"-> q {q:.2f}")
    evidence = {**base.evidence, "measured_q": Evidence(q, NAME, DEFINITION)}
    return Decision(q, reason, evidence=evidence)


MEASURED = register(Predictor(
    name="qidf-measured",
    formula=(f"qidf-content's rule for whether to leave BM25; with a query sample, where it "
             f"leaves BM25, q = the q of a short grid at which simulated known-item queries "
             f"built from the sample find their answers best (else {content.Q_CODE_CORPUS:g} "
             f"for code documents, {content.Q_CODE_QUERIES:g} for text searched with code)"),
    source="measured on the index (benchmarks/retrieval/predictor.md, \"Measured q\")",
    decide=decide,
    measure=measure,
))
