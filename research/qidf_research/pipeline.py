"""The retrieval benchmark's pipeline for one task: index, sweep, measure, compare.

Used by ``bench_retrieval`` (every language, the full run) and by the CI slice
test (a few thousand Go pairs), so both run the same code. Every number is the engine's:
the corpus is indexed with a real analyzer, each q is installed on the index, and the
index goes back to built-in BM25 at the end.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import RetrievalTask, evaluate, indexing, runs
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES, paired_bootstrap
from qidf_ctl.evaluation.score import DEFAULT_BUDGET, score_run
from qidf_ctl.evaluation.sweep import DEFAULT_GRID, SweepResult, sweep
from qidf_ctl.evaluation.tokens import counter as token_counter
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import QlogParams
from qidf_ctl.stats import densities, per_doc
from qidf_ctl.stats.hapax_terms import hapax_terms
from qidf_ctl.stats.query_sample import ANALYSED_QUERIES, analysed_shares, sample_ids
from qidf_ctl.stats.source_sample import SOURCE_SAMPLE
from qidf_ctl.stats.text_shape import text_shape

PREFIX = "qidf-bench-"

# Identifier-aware analyzer for the ablation: camelCase, snake_case, digits and dots split,
# the original token kept beside its parts (what the paper calls an identifier-aware one).
IDENTIFIER_ANALYSIS: dict[str, Any] = {
    "filter": {"qidf_identifier_split": {
        "type": "word_delimiter_graph", "preserve_original": True,
        "split_on_case_change": True, "split_on_numerics": True,
        "generate_word_parts": True, "generate_number_parts": True,
        "stem_english_possessive": False,
    }},
    "analyzer": {"identifier": {
        "type": "custom", "tokenizer": "standard",
        "filter": ["qidf_identifier_split", "flatten_graph", "lowercase"],
    }},
}
ANALYZERS: dict[str, dict[str, Any] | None] = {"standard": None, "identifier": IDENTIFIER_ANALYSIS}


# The benchmark's names for the product's densities (qidf_ctl.stats.densities): computed by
# the product's own definitions, stored under the names results.json has always used.
PRODUCT_DENSITIES = {"h_occ": "tokens", "h_vocab": "vocab", "h_types_df1": "types_per_token"}


def shape_stats(corpus: Mapping[str, str], queries: Mapping[str, str] | None,
                seed: int = 0) -> dict[str, float]:
    """The text-shape candidates (qidf_ctl.stats.text_shape) of a seeded sample of the
    corpus (``src_*``, SOURCE_SAMPLE documents, as ``stats`` reads ``_source``) and of the
    queries (``q_*``, the product's own query sample)."""
    ids = sorted(corpus)
    if len(ids) > SOURCE_SAMPLE:
        ids = sorted(random.Random(seed).sample(ids, SOURCE_SAMPLE))
    out = {f"src_{k}": v for k, v in _shape(text_shape([corpus[i] for i in ids])).items()}
    if queries:
        shape = text_shape([queries[i] for i in sample_ids(queries, seed=seed)])
        out |= {f"q_{k}": v for k, v in _shape(shape).items()}
    return out


def _shape(shape: Any) -> dict[str, float]:
    return {"code_like_share": shape.code_like_share, "code_punctuation": shape.code_punctuation,
            "identifier_words": shape.identifier_words, "mean_words": shape.mean_words,
            "punctuation_code_share": shape.punctuation_code_share}


def corpus_stats(cluster: Cluster, index: str, ids: list[str],
                 query_terms: Mapping[str, Mapping[str, int]] | None = None,
                 queries: Mapping[str, str] | None = None) -> dict[str, float]:
    """Candidate hapax densities of the indexed field, exact (one shard, no deletes).

    Read with ``_mtermvectors`` (term_statistics gives each term's df and ttf), so the
    tokens are the analyzer's own. The df = 1 densities (``PRODUCT_DENSITIES``) go through
    the product's definitions; the research-only candidates beside them are ``h_ttf1``, the
    share of distinct terms seen exactly once (hapax legomena), and ``h_occ_ttf1``, those as
    a share of tokens.

    With a sample of analysed queries (no judgements needed), two query-side densities:
    ``hq_occ``, the share of query tokens whose term has df = 1 in the corpus, and
    ``hq_matched``, the same share among query tokens the corpus has at all (df >= 1);
    given the query texts too, the product's analysed query statistics on its own sample
    (``query_tokens``, ``query_hapax_share``, ``query_unseen_share``). The shapes of the
    df = 1 terms (``hapax_*``) go through the product's definitions as well.
    """
    vocab: dict[str, int] = {}
    df_of: dict[int, int] = {}
    ttf_of: dict[int, int] = {}
    term_ids: list[int] = []
    tfs: list[int] = []
    lengths: list[int] = []
    for start in range(0, len(ids), 500):
        body = {"ids": ids[start:start + 500], "parameters": {
            "fields": [indexing.FIELD], "term_statistics": True, "field_statistics": False,
            "positions": False, "offsets": False, "payloads": False}}
        resp = cluster.request("POST", f"/{index}/_mtermvectors", body)
        for doc in resp["docs"]:
            terms = (doc.get("term_vectors") or {}).get(indexing.FIELD, {}).get("terms", {})
            lengths.append(len(terms))
            for term, info in terms.items():
                tid = vocab.setdefault(term, len(vocab))
                df_of[tid] = int(info.get("doc_freq", 0))
                ttf_of[tid] = int(info.get("ttf", 0))
                term_ids.append(tid)
                tfs.append(int(info.get("term_freq", 0)))
    df = np.array([df_of[i] for i in range(len(vocab))], dtype=np.int64)
    ttf = np.array([ttf_of[i] for i in range(len(vocab))], dtype=np.int64)
    counts = per_doc(np.array(term_ids, dtype=np.int64), np.array(tfs, dtype=np.int64),
                     np.array(lengths, dtype=np.int64), df)
    product = densities(counts, vocabulary=len(vocab))
    tokens = int(ttf.sum()) or 1
    query: dict[str, float] = {}
    if query_terms:
        total = sum(n for counts_ in query_terms.values() for n in counts_.values()) or 1
        one = sum(n for counts_ in query_terms.values() for t, n in counts_.items()
                  if t in vocab and df_of[vocab[t]] == 1)
        known = sum(n for counts_ in query_terms.values() for t, n in counts_.items()
                    if t in vocab) or 1
        query = {"hq_occ": one / total, "hq_matched": one / known}
        if queries:
            chosen = sample_ids(queries)[:ANALYSED_QUERIES]
            df_map = {t: df_of[vocab[t]] for c in query_terms.values() for t in c if t in vocab}
            query |= analysed_shares([Counter(dict(query_terms[i])) for i in chosen], df_map)
    words = list(vocab)
    shapes = hapax_terms(words, df).__dict__
    return {**query,
            **{k: float(v) for k, v in shapes.items() if k != "terms"},
            "docs": float(len(ids)),
            "vocabulary": float(len(vocab)),
            "tokens": float(tokens),
            **{name: product[key] for name, key in PRODUCT_DENSITIES.items()},
            "h_ttf1": float(np.count_nonzero(ttf == 1)) / (len(vocab) or 1),
            "h_occ_ttf1": float(np.count_nonzero(ttf == 1)) / tokens,
            }


def predicted_label(predictor: str, with_queries: bool) -> str:
    """The point label of a predictor measured end to end, with or without a query sample."""
    return f"{predictor}+queries" if with_queries else predictor


@dataclass
class Point:
    """One similarity measured deeply: all metrics, and the paired test against BM25."""

    label: str
    q: float | None
    metrics: dict[str, float]
    p_value: float | None = None
    sign_flip_share: float | None = None


@dataclass
class TaskResult:
    name: str
    index: str
    analyzer: str
    documents: int
    queries: int
    stats: dict[str, float]
    sweep: dict[str, Any]
    points: list[Point] = field(default_factory=list)
    predictions: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0

    def point(self, label: str) -> Point:
        return next(p for p in self.points if p.label == label)


class TaskRunner:
    """One task on one index: analysed queries and per-document token counts kept, so that
    extra q values (a predictor's) can be measured later without redoing anything."""

    def __init__(self, cluster: Cluster, task: RetrievalTask, index: str,
                 analyzer: str = "standard", *, depth: int = evaluate.DEFAULT_DEPTH,
                 budget: int = DEFAULT_BUDGET,
                 counter_name: str = "cl100k", resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0, progress: Progress = quiet) -> None:
        self.cluster, self.task, self.index, self.analyzer = cluster, task, index, analyzer
        self.depth, self.budget, self.resamples, self.seed = depth, budget, resamples, seed
        self.progress = progress
        count = token_counter(counter_name)
        self.doc_tokens = {d: count(t) for d, t in task.corpus.items()}
        self.terms: dict[str, Any] = {}
        self.bm25: dict[str, float] = {}

    def prepare(self) -> None:
        indexing.ensure_index(self.cluster, self.index, self.task.corpus,
                              analyzer=self.analyzer, analysis=ANALYZERS[self.analyzer],
                              progress=self.progress)
        install.revert(self.cluster, self.index)  # a reused index may hold a leftover q
        self.progress(f"{self.index}: analysing {len(self.task.queries)} queries")
        self.terms = evaluate.analyze_queries(self.cluster, self.index, indexing.FIELD,
                                              self.task.queries)

    def measure(self, label: str, q: float | None) -> Point:
        """Install ``q`` (None: built-in BM25), search to full depth, score, compare."""
        try:
            if q is None:
                install.revert(self.cluster, self.index)
            else:
                install.apply(self.cluster, self.index, QlogParams(q))
            run = runs.search_run(self.cluster, self.index, indexing.FIELD, self.terms,
                                  k=self.depth)
        finally:
            install.revert(self.cluster, self.index)
        scored = score_run(run, self.task.qrels, self.doc_tokens, self.budget)
        ndcg = scored.of("NDCG@10")
        if q is None:
            self.bm25 = ndcg
            return Point(label, None, scored.mean)
        boot = paired_bootstrap(ndcg, self.bm25, resamples=self.resamples,
                                         seed=self.seed)
        return Point(label, q, scored.mean, boot.p_value, boot.sign_flip_share)

    def measure_predicted(self, predictor: str, with_queries: bool = False
                          ) -> tuple[Point, dict[str, Any]]:
        """The q a user gets from ``qidf apply --q auto --predictor NAME`` (``with_queries``:
        ``--queries FILE`` holding the task's queries, unlabeled): the product's own
        statistics (exact pass) and predictor on this index, then measured like any q.
        Needs ``measure("bm25", None)`` first (the bootstrap's baseline)."""
        from qidf_ctl.predictors import predict_for_index
        from qidf_ctl.stats.query_sample import from_texts

        sample = from_texts(self.task.queries, "the task's queries") if with_queries else None
        prediction = predict_for_index(self.cluster, self.index, indexing.FIELD, exact=True,
                                       predictor=predictor, queries=sample)
        label = predicted_label(predictor, with_queries)
        return self.measure(label, prediction.q), prediction.as_dict()

    def run_sweep(self, grid: tuple[float, ...] = DEFAULT_GRID) -> SweepResult:
        self.progress(f"{self.index}: sweeping {len(grid)} q values")
        return sweep(self.cluster, self.index, self.task.queries, self.task.qrels, grid=grid,
                     field_name=indexing.FIELD, terms=self.terms)


def run_task(cluster: Cluster, task: RetrievalTask, index: str, *, analyzer: str = "standard",
             grid: tuple[float, ...] = DEFAULT_GRID,
             predictors: Mapping[str, Callable[[dict[str, float]], float]] | None = None,
             shipped: tuple[str, ...] = (),
             progress: Progress = quiet, **runner_kw: Any) -> TaskResult:
    """Index, sweep, then measure BM25, the oracle q and each predictor's q deeply:
    ``predictors`` map the benchmark's own statistics to q; ``shipped`` names predictors of
    the product's registry, run end to end as ``apply --q auto`` would."""
    started = time.monotonic()
    runner = TaskRunner(cluster, task, index, analyzer, progress=progress, **runner_kw)
    runner.prepare()
    stats = corpus_stats(cluster, index, sorted(task.corpus), runner.terms, task.queries)
    stats |= shape_stats(task.corpus, task.queries)
    sw = runner.run_sweep(grid)
    result = TaskResult(task.name, index, analyzer, len(task.corpus), len(task.queries), stats,
                        sw.as_dict())
    result.points.append(runner.measure("bm25", None))
    result.points.append(runner.measure("oracle", sw.oracle_q))
    for name, predict in (predictors or {}).items():
        result.points.append(runner.measure(name, predict(stats)))
    for name in shipped:
        for with_queries in (False, True):
            point, prediction = runner.measure_predicted(name, with_queries)
            result.points.append(point)
            result.predictions[point.label] = prediction
    result.seconds = time.monotonic() - started
    return result


def to_json(result: TaskResult) -> str:
    """Stable JSON of a result (for results.json and caches)."""
    from dataclasses import asdict

    return json.dumps(asdict(result), indent=1, sort_keys=True)
