"""The benchmark's corpora and tasks as every study builds them: the pinned corpora (built
on first use), a task of one direction, a seeded subset, and the studies' log line. Shared by
``bench_retrieval`` and the studies that rebuild its tasks (they import this, never the
runner)."""

from __future__ import annotations

import random
import sys
import time

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora import RetrievalTask, code_to_doc, doc_to_code, load_pairs


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_corpus(language: str) -> list[Pair]:
    """The language's pairs: Go shipped, the others built once from pinned sources."""
    from qidf_research.sources.pinned import corpus_path  # research/qidf_research/sources/pinned.py

    return load_pairs(corpus_path(language, log))


def make_task(pairs: list[Pair], direction: str, queries: int, seed: int = 0) -> RetrievalTask:
    make = code_to_doc if direction == "code2doc" else doc_to_code
    return make(pairs, max_queries=queries, seed=seed)


def subset(pairs: list[Pair], n: int, seed: int = 0) -> list[Pair]:
    """A seeded sample of ``n`` pairs (the scaling curve's smaller corpora)."""
    ordered = sorted(pairs, key=lambda p: p.id)
    if n >= len(ordered):
        return ordered
    keep = sorted(random.Random(seed).sample(range(len(ordered)), n))
    return [ordered[i] for i in keep]
