"""Unlabeled rankings of each code task's query sample at every q of a short grid: the data
for the label-free query-performance study (predictor.md, "Choosing q from the query sample").

Per task (the eleven languages in both directions, and Go's scaling subsets), the index is
built as the benchmark builds it, every q of ``GRID`` is installed in turn, and the task's
queries are searched to depth ``DEPTH``. What is kept is what a user's unlabeled query log
would give: document ids and scores. The judgements are stored beside them only so that the
study can score a criterion's choice afterwards; no criterion reads them.

    .venv/bin/python -m qidf_research.qpp_runs [--only go-code2doc,...]

Writes ``<research cache>/qpp/<task>.npz`` (``--seed N``: ``qpp/seedN/``; ``--queries N``:
``qpp/qN/``) (resumable: a task already written is skipped).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.evaluation import RetrievalTask, evaluate, indexing, runs
from qidf_ctl.similarity import QlogParams
from qidf_research.bench_tasks import load_corpus, make_task, subset
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.pipeline import PREFIX

GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DEPTH = 100
QUERIES = 1000
LANGUAGES = ("go", "java", "ruby", "python", "php", "javascript", "rust", "typescript",
             "kotlin", "scala", "c")
OUT = RESEARCH_CACHE / "qpp"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def task_specs(seed: int = 0, queries: int = QUERIES, main_only: bool = False
               ) -> list[tuple[str, Any]]:
    """(key, builder): the benchmark's own task definitions (same corpora and query seeds),
    or with another seed or sample size of queries; ``main_only``: the 22 main tasks, not
    Go's scaling subsets. Each corpus is read once however many tasks use it."""
    corpus = cache(load_corpus)
    specs: list[tuple[str, Any]] = []
    for lang in LANGUAGES:
        for direction in ("code2doc", "doc2code"):
            specs.append((f"{lang}-{direction}",
                          partial(lambda lang, d: make_task(corpus(lang), d, queries, seed),
                                  lang, direction)))
    if main_only:
        return specs
    for n in (1000, 10_000):
        specs.append((f"go-code2doc-{n // 1000}k", partial(
            lambda n: make_task(subset(corpus("go"), n), "code2doc", queries, seed), n)))
    for n in (1000, 10_000, 100_000):
        specs.append((f"go-large-code2doc-{n // 1000}k", partial(
            lambda n: make_task(subset(corpus("go-large"), n), "code2doc", queries, seed), n)))
    specs.append(("go-large-code2doc",
                  lambda: make_task(corpus("go-large"), "code2doc", queries, seed)))
    return specs


def collect(cluster: Cluster, key: str, task: RetrievalTask, path: Path,
            depth: int = DEPTH) -> None:
    index = f"{PREFIX}{key}"
    indexing.ensure_index(cluster, index, task.corpus, progress=log)
    install.revert(cluster, index)
    terms = evaluate.analyze_queries(cluster, index, indexing.FIELD, task.queries)
    qids = sorted(terms)
    docs = sorted(task.corpus)
    position = {d: i for i, d in enumerate(docs)}
    ids = np.full((len(GRID), len(qids), depth), -1, dtype=np.int32)
    scores = np.zeros((len(GRID), len(qids), depth), dtype=np.float32)
    try:
        for g, q in enumerate(GRID):
            install.apply(cluster, index, QlogParams(q))
            run = runs.search_run(cluster, index, indexing.FIELD, terms, k=depth)
            for i, qid in enumerate(qids):
                for j, (doc, score) in enumerate(run.get(qid, [])[:depth]):
                    ids[g, i, j] = position[doc]
                    scores[g, i, j] = score
            log(f"{key}: q={q:g} searched")
    finally:
        install.revert(cluster, index)
    qrels = {qid: sorted(task.qrels.get(qid, {})) for qid in qids}
    meta = {"key": key, "grid": list(GRID), "depth": depth, "qids": qids,
            "documents": len(docs), "qrels": {q: [position[d] for d in r if d in position]
                                              for q, r in qrels.items()},
            "query_terms": {q: dict(terms[q]) for q in qids}}
    np.savez_compressed(path, ids=ids, scores=scores,
                        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    cluster.request("DELETE", f"/{index}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None)
    ap.add_argument("--only", default="", help="comma-separated task keys")
    ap.add_argument("--seed", type=int, default=0,
                    help="query sample seed; > 0: main tasks only, under qpp/seed<N>/")
    ap.add_argument("--queries", type=int, default=QUERIES,
                    help="queries per task (> 1,000: main tasks only, under qpp/q<N>/)")
    ap.add_argument("--depth", type=int, default=DEPTH)
    args = ap.parse_args(argv)
    only = {k for k in args.only.split(",") if k}
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    other_queries = bool(args.seed) or args.queries != QUERIES
    out = (OUT / f"q{args.queries}" if args.queries != QUERIES
           else OUT / f"seed{args.seed}" if args.seed else OUT)
    out.mkdir(parents=True, exist_ok=True)
    for key, build in task_specs(args.seed, args.queries, main_only=other_queries):
        path = out / f"{key}.npz"
        if (only and key not in only) or path.is_file():
            continue
        started = time.monotonic()
        collect(cluster, key, build(), path, args.depth)
        log(f"{key}: done in {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
