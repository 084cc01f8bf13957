"""The measured-q study's offline pieces: Lucene's one-byte norm and BM25 offline on a tiny
matrix."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from qidf_research.knownitem.matrix import TermMatrix
from qidf_research.knownitem.scorer import K1, B, Scorer, ndcg10, norm_length

from qidf_ctl.formula import idf


def test_norm_length_is_lucenes_smallfloat_round_trip():
    lengths = np.array([0, 5, 23, 24, 31, 39, 40, 41, 43])
    assert norm_length(lengths).tolist() == [0, 5, 23, 24, 31, 39, 40, 40, 42]


def test_offline_bm25_is_the_formula_and_ranks_the_gold():
    tf = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [3, 1, 0]], dtype=np.int32))
    m = TermMatrix(["a", "b", "c"], ["x", "y", "z"], tf)
    s = Scorer(m)
    w = s.weights([{"x": 1, "z": 2}])
    lengths = np.array([3, 2, 4])
    avgdl = float(np.float32(lengths.sum() / 3))
    def bm25(doc: int) -> float:
        k = K1 * (1 - B + B * lengths[doc] / avgdl)
        total = 0.0
        for term, count in (("x", 1), ("z", 2)):
            j = m.terms.index(term)
            f = tf[doc, j]
            total += count * idf(1.0, 3, int((tf[:, j] > 0).sum())) * f / (f + k) if f else 0
        return total
    scores = s.scores(w, 1.0)[0]
    assert np.allclose(scores, [bm25(d) for d in range(3)])
    best = int(np.argmax(scores))
    assert s.ranks(w, np.array([best]), 1.0).tolist() == [1]
    assert ndcg10(np.array([1, 3, 11])).tolist() == [1.0, 1 / math.log2(4), 0.0]
