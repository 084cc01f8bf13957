"""Retrieval tasks made from pairs, in the two CodeSearchNet directions.

CoIR's CodeSearchNet task (the one the paper reports) is code -> doc: each query is a
function's code and its single relevant document is that function's docstring, searched
among all docstrings. doc -> code is the original CodeSearchNet direction.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from qidf_ctl.evaluation.pairs import Pair


@dataclass
class RetrievalTask:
    """A corpus, queries and binary qrels, keyed by pair id on both sides."""

    name: str
    corpus: dict[str, str]  # doc_id -> text
    queries: dict[str, str]  # query_id -> text
    qrels: dict[str, dict[str, int]]  # query_id -> {doc_id: 1}


def _task_name(pairs: Sequence[Pair], direction: str) -> str:
    """``csn-go-code2doc``; languages joined with + when pairs mix languages."""
    langs = "+".join(sorted({p.language for p in pairs})) or "empty"
    return f"csn-{langs}-{direction}"


def _query_pairs(pairs: list[Pair], max_queries: int | None, seed: int) -> list[Pair]:
    """All pairs, or a seeded sample of them; independent of the input order."""
    if max_queries is None or max_queries >= len(pairs):
        return pairs
    if max_queries < 0:
        raise ValueError("max_queries must be >= 0")
    chosen = random.Random(seed).sample(range(len(pairs)), max_queries)
    return [pairs[i] for i in sorted(chosen)]


def _make(
    pairs: Sequence[Pair], direction: str, max_queries: int | None, seed: int
) -> RetrievalTask:
    """Shared body of both directions: corpus from every pair, queries from a sample."""
    ordered = sorted(pairs, key=lambda p: p.id)
    if len({p.id for p in ordered}) != len(ordered):
        raise ValueError("pair ids must be unique")
    code2doc = direction == "code2doc"
    corpus = {p.id: (p.doc if code2doc else p.code) for p in ordered}
    queried = _query_pairs(ordered, max_queries, seed)
    queries = {p.id: (p.code if code2doc else p.doc) for p in queried}
    qrels = {p.id: {p.id: 1} for p in queried}
    return RetrievalTask(_task_name(ordered, direction), corpus, queries, qrels)


def code_to_doc(
    pairs: Sequence[Pair], *, max_queries: int | None = None, seed: int = 0
) -> RetrievalTask:
    """CoIR direction: corpus = all docstrings, queries = code (seeded sample if capped).

    The corpus always holds every docstring, so a capped run is as hard as a full one.
    """
    return _make(pairs, "code2doc", max_queries, seed)


def doc_to_code(
    pairs: Sequence[Pair], *, max_queries: int | None = None, seed: int = 0
) -> RetrievalTask:
    """CodeSearchNet direction: corpus = all functions' code, queries = docstrings."""
    return _make(pairs, "doc2code", max_queries, seed)
