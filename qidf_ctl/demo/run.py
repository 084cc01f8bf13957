"""The demo: real Go code, the generic ``standard`` analyzer, BM25 against q-log.

CoIR's CodeSearchNet direction (the paper's headline task): each query is a function's code,
the corpus is every function's docstring, and the gold document is the function's own
docstring. Under ``standard`` an identifier such as ``ParseMultipartForm`` is one token that
often occurs in the query and in exactly one docstring; BM25's log IDF barely rewards that.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.demo.corpus import shipped_corpus
from qidf_ctl.evaluation import RetrievalTask, code_to_doc, files, indexing, load_pairs, runs
from qidf_ctl.evaluation.evaluate import analyze_queries
from qidf_ctl.evaluation.metrics import evaluate
from qidf_ctl.evaluation.recommend import recommend
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.evaluation.sweep import MEASURE
from qidf_ctl.predictors import predict_for_index
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.similarity import Mode, QlogParams
from qidf_ctl.stats.query_sample import from_texts

DEMO_INDEX = "qidf-demo-go"
# The q the demo measures, and the grid of the `qidf sweep` it prints next (with 1): the
# same points, so that the sweep's recommendation is the one the demo printed.
GRID = (0.05, 0.1, 0.3, 0.5, 0.7)
AUTO = "--q auto"
QUERIES_FILE = "queries.jsonl"
QRELS_FILE = "qrels.trec"


@dataclass
class DemoRow:
    label: str
    q: float | None
    ndcg10: float
    mrr10: float
    recall100: float


@dataclass
class DemoResult:
    index: str
    documents: int
    queries: int
    rows: list[DemoRow] = field(default_factory=list)
    example: dict[str, Any] = field(default_factory=dict)
    predicted_q: float | None = None  # the default predictor's q for this index
    predicted_reason: str = ""
    recommended_q: float | None = None  # what `qidf sweep` recommends with the judgements
    recommended_reason: str = ""
    mode: str = Mode.SCRIPT.value  # how q-log was installed: Painless or the native plugin
    queries_file: str | None = None  # the demo's queries and judgements, for eval and sweep
    qrels_file: str | None = None


def _gold_rank(hits: list[tuple[str, float]], gold: set[str]) -> int | None:
    for rank, (doc, _) in enumerate(hits, start=1):
        if doc in gold:
            return rank
    return None


def load_task(max_queries: int, seed: int = 0) -> RetrievalTask:
    return code_to_doc(load_pairs(shipped_corpus("go")), max_queries=max_queries, seed=seed)


def write_task_files(task: RetrievalTask, folder: str | Path) -> tuple[Path, Path]:
    """The task's queries (BEIR JSONL) and judgements (TREC qrels) in ``folder``, each
    written to a temporary name and renamed: a reader never sees half a file."""
    folder = Path(folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    queries, qrels = folder / QUERIES_FILE, folder / QRELS_FILE
    partial = {path: folder / f".{path.name}.{os.getpid()}.tmp" for path in (queries, qrels)}
    files.write_queries(task.queries, partial[queries])
    files.write_qrels(task.qrels, partial[qrels])
    written = []
    for path, temporary in partial.items():
        os.replace(temporary, path)
        written.append(path.resolve())
    return written[0], written[1]


def run_demo(
    cluster: Cluster,
    *,
    qs: tuple[float, ...] = GRID,
    max_queries: int = 500,
    index: str = DEMO_INDEX,
    mode: Mode = Mode.SCRIPT,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
    files_dir: str | Path | None = None,
) -> DemoResult:
    """Index the shipped Go corpus, search it with BM25 and q-log at ``qs`` and at the
    predicted q, and recommend a q from the judgements as ``qidf sweep`` does (the same
    points, the same reference, ``--q auto``); with ``files_dir``, first write the queries
    and judgements there (so that ``qidf predict --queries``, ``eval`` and ``sweep`` can
    run on the demo)."""
    task = load_task(max_queries)
    written = write_task_files(task, files_dir) if files_dir is not None else None
    indexing.ensure_index(cluster, index, task.corpus, progress=progress, bar=bar)
    progress(f"analysing {len(task.queries)} code queries with the index's analyzer")
    terms = analyze_queries(cluster, index, indexing.FIELD, task.queries, bar)

    result = DemoResult(index, len(task.corpus), len(task.queries), mode=mode.value)
    if written is not None:
        result.queries_file, result.qrels_file = (str(p) for p in written)
    # What `qidf apply --q auto --queries FILE` would install: the default predictor on this
    # index's own statistics and the demo's queries as the unlabeled sample (a docstring
    # index alone looks like prose: only the queries show that it is searched with code).
    prediction = predict_for_index(cluster, index, indexing.FIELD, exact=True,
                                   queries=from_texts(task.queries, "the demo's queries"),
                                   progress=progress)
    result.predicted_q = prediction.q
    result.predicted_reason = prediction.reason
    all_runs: dict[str, runs.Run] = {}
    per_query: dict[float, dict[str, float]] = {}
    settings: list[tuple[str, float | None]] = [("BM25 (built-in)", None)]
    settings += [(f"q-log q={q:g}", q) for q in sorted({*qs, prediction.q}, reverse=True)
                 if q < 1]
    settings = [(f"{label} (qidf predict)" if (q or 1.0) == prediction.q else label, q)
                for label, q in settings]
    try:
        for label, q in settings:
            if q is None:
                install.revert(cluster, index)
            else:
                install.apply(cluster, index, QlogParams(q), mode=mode)
            progress(f"searching with {label}")
            run = runs.search_run(cluster, index, indexing.FIELD, terms)
            scores = evaluate(run, task.qrels).mean
            all_runs[label] = run
            per_query[1.0 if q is None else q] = score_run(run, task.qrels).of(MEASURE)
            result.rows.append(DemoRow(label, q, scores["nDCG@10"], scores["RR@10"],
                                       scores["R@100"]))
    finally:
        install.revert(cluster, index)
    result.example = _best_example(task, all_runs, result.rows)
    judged = recommend(per_query, prediction.q, AUTO)
    result.recommended_q, result.recommended_reason = judged.q, judged.reason
    return result


def _best_example(task: RetrievalTask, all_runs: dict[str, runs.Run],
                  rows: list[DemoRow]) -> dict[str, Any]:
    """The query whose gold docstring climbs most from BM25 to the best q-log setting."""
    best = max(rows[1:], key=lambda r: r.ndcg10, default=None)
    if best is None:
        return {}
    base, better = all_runs[rows[0].label], all_runs[best.label]
    chosen, gain = None, 0
    for qid in sorted(task.qrels):
        gold = set(task.qrels[qid])
        r0 = _gold_rank(base.get(qid, []), gold) or 101
        r1 = _gold_rank(better.get(qid, []), gold) or 101
        if r1 <= 3 and r0 - r1 > gain:
            chosen, gain = qid, r0 - r1
    if chosen is None:
        return {}
    gold_doc = next(iter(task.qrels[chosen]))
    code = task.queries[chosen]
    return {
        "query_id": chosen,
        "code_head": "\n".join(code.splitlines()[:4]),
        "gold_doc": task.corpus[gold_doc][:160],
        "bm25_rank": _gold_rank(base[chosen], {gold_doc}),
        "qlog_rank": _gold_rank(better[chosen], {gold_doc}),
        "qlog_label": best.label,
    }
