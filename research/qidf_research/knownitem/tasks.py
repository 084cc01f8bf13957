"""The benchmark's tasks as matrices: per language the docstring index (code -> doc) and the
code index (doc -> code), and any seeded query sample of either direction.

A query's analysed tokens are the term vector of the same text in the other direction's
index (the same ``standard`` analyzer), so no query is sent through ``_analyze``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy.sparse as sp

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.pairs import Pair, load_pairs
from qidf_ctl.evaluation.tasks import code_to_doc, doc_to_code
from qidf_research.knownitem.matrix import TermMatrix, load
from qidf_research.knownitem.scorer import Scorer
from qidf_research.pipeline import PREFIX

DIRECTIONS = ("code2doc", "doc2code")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@cache
def pairs_of(language: str) -> list[Pair]:
    from qidf_research.sources.pinned import corpus_path

    return load_pairs(corpus_path(language, _log))


def sample(language: str, direction: str, queries: int, seed: int) -> list[str]:
    """The pair ids of the benchmark's seeded query sample (``qpp_runs``'s seeds)."""
    make = code_to_doc if direction == "code2doc" else doc_to_code
    return sorted(make(pairs_of(language), max_queries=queries, seed=seed).queries)


@cache
def side(language: str, direction: str, cluster: Cluster | None = None) -> TermMatrix:
    """The matrix of the index ``direction`` searches (docstrings for code2doc)."""
    pairs = pairs_of(language)
    corpus = {p.id: (p.doc if direction == "code2doc" else p.code) for p in pairs}
    return load(cluster, f"{PREFIX}{language}-{direction}", corpus)


@dataclass
class Task:
    """One direction of one language: the searched field and every query text's tokens."""

    key: str
    index: TermMatrix
    queries: TermMatrix  # the other side: row i holds the tokens of pair ids[i]
    scorer: Scorer

    def position(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.index.ids)}

    def counts(self, ids: list[str]) -> list[dict[str, int]]:
        row = {d: i for i, d in enumerate(self.queries.ids)}
        out = []
        for qid in ids:
            r = self.queries.tf[row[qid]]
            out.append({self.queries.terms[j]: int(v)
                        for j, v in zip(r.indices, r.data, strict=True)})
        return out

    def weights(self, ids: list[str]) -> sp.csr_matrix:
        return self.scorer.weights(self.counts(ids))

    def gold(self, ids: list[str]) -> np.ndarray:
        pos = self.position()
        return np.array([pos[i] for i in ids])


@cache
def task(language: str, direction: str, cluster: Cluster | None = None) -> Task:
    other = "doc2code" if direction == "code2doc" else "code2doc"
    searched = side(language, direction, cluster)
    return Task(f"{language}-{direction}", searched, side(language, other, cluster),
                Scorer(searched))
