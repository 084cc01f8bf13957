"""``qidf eval``: retrieval quality of a live index, as deployed.

Queries go through the index's own search analyzer (``_analyze``) and the engine's own
scoring, so a number here is what users get. The IR metrics come from ir-measures
(pytrec_eval underneath); Recall@8K-tokens is computed on the same run with a documented
token counter (``tokens``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index
from qidf_ctl.errors import UsageError
from qidf_ctl.evaluation import queries, runs
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES, Bootstrap, paired_bootstrap
from qidf_ctl.evaluation.budget import token_counts_for_run
from qidf_ctl.evaluation.files import Qrels, sample_queries
from qidf_ctl.evaluation.score import DEFAULT_BUDGET, WithPerQuery, score_run
from qidf_ctl.evaluation.tokens import COUNTERS
from qidf_ctl.evaluation.tokens import counter as token_counter
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet

DEFAULT_DEPTH = 1000


@dataclass
class EvalResult(WithPerQuery):
    """What ``qidf eval`` reports."""

    index: str
    field: str
    similarity: str
    queries: int
    depth: int
    token_budget: int
    token_counter: str
    mean: dict[str, float]
    empty_queries: int
    depth_limited_queries: int
    baseline: Bootstrap | None = None
    per_query: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict, repr=False)


def run_terms(cluster: Cluster, index: str, field_name: str, terms: Mapping[str, Any],
              depth: int, bar: BarFactory = no_bar,
              bodies: Mapping[str, dict[str, Any]] | None = None) -> runs.Run:
    """One search per query, ``depth`` hits each, with a progress bar."""
    with bar(f"searching (top {depth})", len(terms)) as advance:
        return runs.search_run(cluster, index, field_name, terms, k=depth, advance=advance,
                               queries=bodies)


def analyze_queries(cluster: Cluster, index: str, field_name: str, texts: Mapping[str, str],
                    bar: BarFactory = no_bar,
                    tokens: Callable[[str], Counter[str]] | None = None) -> dict[str, Any]:
    """Each query's tokens under the field's search analyzer (one ``_analyze`` each), or
    under ``tokens`` (query time: it also works where ``_analyze`` is not allowed)."""
    with bar("analysing queries", len(texts)) as advance:
        if tokens is None:
            return queries.analyze_all(cluster, index, field_name, texts, advance)
        out = {}
        for qid, text in texts.items():
            out[qid] = tokens(text)
            advance(1)
        return out



def evaluate_index(
    cluster: Cluster,
    index: str,
    queries_: dict[str, str],
    qrels: Qrels,
    *,
    field_name: str | None = None,
    depth: int = DEFAULT_DEPTH,
    budget: int = DEFAULT_BUDGET,
    counter_name: str = "cl100k",
    baseline: runs.Run | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    query_time_q: float | None = None,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
) -> tuple[EvalResult, runs.Run]:
    """Search every judged query on ``index`` as it is configured now, and score the run;
    with ``query_time_q``, as q-log at that q built into the queries (the index unchanged)."""
    if depth < 10:
        raise UsageError(f"--depth must be at least 10 (NDCG@10 needs it), got {depth}")
    if budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {budget}")
    if counter_name not in COUNTERS:
        raise UsageError(f"unknown token counter {counter_name!r}: choose one of "
                         f"{', '.join(COUNTERS)}")
    count = token_counter(counter_name)
    queries_, qrels = sample_queries(queries_, qrels, None)
    if query_time_q is None:
        description = describe_index(cluster, index)
        description.require_open("search it")
        resolved = description.index
        fname = description.text_field(field_name)
        similarity = SimilarityState(description).installed.describe()
    else:
        from qidf_ctl.querytime import QueryTime  # it builds on this package

        qt = QueryTime.connect(cluster, index, query_time_q, field_name)
        resolved, fname, similarity = qt.target.index, qt.target.field, qt.describe()
    tokens = None if query_time_q is None else qt.tokens
    terms = analyze_queries(cluster, resolved, fname, queries_, bar, tokens)
    bodies = None if query_time_q is None else qt.queries(terms)
    run = run_terms(cluster, resolved, fname, terms, depth, bar, bodies)
    progress("counting tokens of the retrieved documents")
    doc_tokens = token_counts_for_run(cluster, resolved, fname, run, budget, count)
    scored = score_run(run, qrels, doc_tokens, budget)
    result = EvalResult(resolved, fname, similarity, len(qrels), depth, budget, counter_name,
                        scored.mean, scored.empty_queries, scored.depth_limited, None,
                        scored.per_query)
    if baseline is not None:
        base = score_run(baseline, qrels)
        result.baseline = paired_bootstrap(
            scored.of("NDCG@10"), base.of("NDCG@10"),
            resamples=resamples, seed=seed)
    return result, run
