"""Simulated known-item queries shaped like a real query sample (predictor.md, "Measured q").

Each real query is a template: the tokens of it that point at one document (``anchor``) are
replaced by tokens of a random target document with the nearest df, everything else of the
template is kept, and the target is the simulated query's answer. Which tokens point at one
document is read without labels: the document holding the most of the template's rare tokens
(df <= sqrt(N)), used only when that count beats what random placement gives (the product's
``measured.simulate.null_max`` and ``rare_limit``: one definition of each).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from qidf_ctl.measured.simulate import null_max, rare_limit
from qidf_research.knownitem.scorer import Scorer, ndcg10

GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
ANCHOR_ALL = "M1"  # every token of the template the anchor holds
ANCHOR_RARE = "M2"  # only its rare tokens
GOLD = "M0"  # diagnostic: the tokens the judged answer holds
ANCHOR_RARE_ALL = "M2a"  # M2 on every template whose anchor holds a rare token (no null)


@dataclass
class Simulated:
    """The simulated queries (rows: term counts over the field's terms) and their answers;
    ``used``: which templates made one."""

    counts: sp.csr_matrix
    answers: np.ndarray
    used: np.ndarray
    anchors: np.ndarray  # the anchor document of each used template (-1 for M0)


class Simulator:
    """Builds simulated queries for one field from template queries (term-count rows)."""

    def __init__(self, scorer: Scorer, seed: int = 0, draws: int = 1) -> None:
        self.scorer = scorer
        self.n = scorer.doc_count
        binary = scorer.matrix.tf.copy()
        binary.data[:] = 1
        self.binary = binary.astype(np.float32).tocsr()
        self.binary_t = self.binary.T.tocsr()
        self.df = scorer.df.astype(np.float64)
        self.log_df = np.log(np.maximum(self.df, 1))
        self.rare = self.df <= rare_limit(self.n)
        self.rng = np.random.default_rng(seed)
        self.draws = draws  # targets drawn per template; the best df match is kept
        self._anchors: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def anchors(self, templates: sp.csr_matrix, batch: int = 256) -> tuple[np.ndarray, np.ndarray]:
        """Per template: the document holding most of its distinct rare tokens, and that
        count (computed once per template matrix)."""
        if id(templates) in self._anchors:
            return self._anchors[id(templates)]
        rare = templates.copy().tocsr()
        rare.data[:] = 1
        rare = rare.multiply(self.rare[None, :]).tocsr().astype(np.float32)
        best = np.empty(rare.shape[0], dtype=np.int64)
        count = np.empty(rare.shape[0], dtype=np.int64)
        for s in range(0, rare.shape[0], batch):
            c = np.asarray((rare[s:s + batch] @ self.binary_t).todense())
            best[s:s + batch] = c.argmax(axis=1)
            count[s:s + batch] = np.rint(c.max(axis=1)).astype(np.int64)
        self._anchors[id(templates)] = (best, count)
        return best, count

    def _cols(self, d: int) -> np.ndarray:
        return self.binary.indices[self.binary.indptr[d]:self.binary.indptr[d + 1]]

    def _match(self, free: np.ndarray, wanted: np.ndarray) -> tuple[list[int], float]:
        """Greedy nearest-df tokens of ``free`` for ``wanted`` (rarest first), and the summed
        |log df| mismatch (a wanted token with no free token left costs log N)."""
        chosen: list[int] = []
        cost = 0.0
        for t in wanted:
            if not len(free):
                cost += math.log(self.n)
                continue
            gaps = np.abs(self.log_df[free] - self.log_df[t])
            j = int(np.argmin(gaps))
            cost += float(gaps[j])
            chosen.append(int(free[j]))
            free = np.delete(free, j)
        return chosen, cost

    def _target(self, exclude: int, terms: np.ndarray, wanted: np.ndarray
                ) -> tuple[int, list[int]]:
        """Of ``draws`` random documents (never ``exclude``), the one whose tokens match the
        df of ``wanted`` best, and those tokens (never one already in the query)."""
        best: tuple[float, int, list[int]] | None = None
        for _ in range(self.draws):
            d = int(self.rng.integers(self.binary.shape[0]))
            if d == exclude:
                continue
            chosen, cost = self._match(np.setdiff1d(self._cols(d), terms), wanted)
            if best is None or cost < best[0]:
                best = (cost, d, chosen)
        assert best is not None
        return best[1], best[2]

    def build(self, templates: sp.csr_matrix, method: str,
              gold: np.ndarray | None = None) -> Simulated:
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        answers: list[int] = []
        used: list[int] = []
        anchors_out: list[int] = []
        if method == GOLD:
            assert gold is not None
            anchor_docs, keep = gold, np.ones(templates.shape[0], dtype=bool)
        else:
            anchor_docs, count = self.anchors(templates)
            keep = np.array([count[i] > (0 if method == ANCHOR_RARE_ALL else
                                         null_max(self._dfs(templates, i), self.n))
                             for i in range(templates.shape[0])])
        for i in np.nonzero(keep)[0]:
            start, end = templates.indptr[i], templates.indptr[i + 1]
            terms = templates.indices[start:end]
            reps = templates.data[start:end]
            a = int(anchor_docs[i])
            held = self.binary[a, terms].toarray().ravel() > 0
            if method in (ANCHOR_RARE, ANCHOR_RARE_ALL):
                held &= self.rare[terms]
            if not held.any():
                continue
            order = np.argsort(self.df[terms[held]], kind="stable")
            wanted, wanted_reps = terms[held][order], reps[held][order]
            d, chosen = self._target(a, terms, wanted)
            out_terms = list(terms[~held]) + chosen
            out_reps = list(reps[~held]) + list(wanted_reps[:len(chosen)])
            r = len(answers)
            rows += [r] * len(out_terms)
            cols += out_terms
            vals += out_reps
            answers.append(d)
            used.append(int(i))
            anchors_out.append(a if method != GOLD else -1)
        counts = sp.csr_matrix((np.array(vals, dtype=np.float64), (rows, cols)),
                               shape=(len(answers), templates.shape[1]))
        return Simulated(counts, np.array(answers, dtype=np.int64), np.array(used),
                         np.array(anchors_out))

    def _dfs(self, templates: sp.csr_matrix, i: int) -> list[int]:
        terms = templates.indices[templates.indptr[i]:templates.indptr[i + 1]]
        return [int(d) for d in self.df[terms[self.rare[terms]]]]


def curve(scorer: Scorer, sim: Simulated, grid: Sequence[float] = GRID) -> dict[float, float]:
    """Mean NDCG@10 of the simulated queries at each q."""
    if not len(sim.answers):
        return {q: 0.0 for q in grid}
    return {q: float(ndcg10(scorer.ranks(sim.counts, sim.answers, q)).mean()) for q in grid}


def argmax(values: dict[float, float]) -> float:
    """The best q of a curve (ties: the larger q)."""
    best = max(values.values())
    return max(q for q, v in values.items() if v >= best - 1e-12)
