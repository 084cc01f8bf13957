"""Lucene's BM25 and q-log BM25, offline, on a ``TermMatrix``: the benchmark's engine
rankings reproduced (checked against the sweep curves of results.json by ``validate``).

Lucene scores a term ``idf * freq / (freq + k1 (1 - b + b dl / avgdl))`` with ``dl`` the
field length decoded from its one-byte norm (``SmallFloat.intToByte4``), ``avgdl`` the
field's sumTotalTermFreq / docCount, and the IDF ``ln(1 + (N - n + 0.5) / (n + 0.5))``;
q-log BM25 replaces the IDF by ``qidf_ctl.formula.idf`` (the ``lucene`` form). A query is
its analysed tokens with repeat counts as boosts (``evaluation.queries.term_query``).
Ties go to the lower document position (the engine's index order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from qidf_ctl.formula import idf
from qidf_research.knownitem.matrix import TermMatrix

K1 = 1.2
B = 0.75
_FREE = 24  # SmallFloat.NUM_FREE_VALUES: lengths below it are stored exactly


def _long_to_int4(i: np.ndarray) -> np.ndarray:
    bits = np.where(i > 0, np.floor(np.log2(np.maximum(i, 1))).astype(np.int64) + 1, 0)
    shift = bits - 4
    encoded = ((i >> np.maximum(shift, 0)) & 0x07) | ((shift + 1) << 3)
    return np.where(bits < 4, i, encoded)


def _int4_to_long(i: np.ndarray) -> np.ndarray:
    bits = i & 0x07
    shift = (i >> 3) - 1
    return np.where(shift == -1, bits, (bits | 0x08) << np.maximum(shift, 0))


def norm_length(lengths: np.ndarray) -> np.ndarray:
    """The field length Lucene's norm gives back (one byte, lossy above 23)."""
    n = lengths.astype(np.int64)
    byte = np.where(n < _FREE, n, _FREE + _long_to_int4(np.maximum(n - _FREE, 0)))
    return np.where(byte < _FREE, byte, _FREE + _int4_to_long(np.maximum(byte - _FREE, 0)))


@dataclass
class Scorer:
    """Scores analysed queries against one field, at any q."""

    matrix: TermMatrix

    def __post_init__(self) -> None:
        tf = self.matrix.tf.astype(np.float64).tocsr()
        lengths = self.matrix.lengths
        self.doc_count = int((lengths > 0).sum())
        avgdl = float(np.float32(lengths.sum() / max(self.doc_count, 1)))
        k = K1 * (1 - B + B * norm_length(lengths) / avgdl)
        tfn = tf.copy()
        rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
        tfn.data = tf.data / (tf.data + k[rows])
        self.tfn_t = tfn.T.tocsr()  # terms x documents
        self.tfn_csc = tfn.tocsc()  # documents x terms, column slices for a batch's terms
        self.df = self.matrix.df
        self.column = self.matrix.column()
        self._idf: dict[float, np.ndarray] = {}

    def idf(self, q: float) -> np.ndarray:
        if q not in self._idf:
            n = self.doc_count
            self._idf[q] = np.array([idf(q, n, int(d)) if d else 0.0 for d in self.df])
        return self._idf[q]

    def weights(self, queries: list[dict[str, int]]) -> sp.csr_matrix:
        """Queries x terms: each query's repeat counts over the field's terms (tokens the
        field lacks score nothing and are dropped)."""
        rows, cols, vals = [], [], []
        for i, counts in enumerate(queries):
            for t, c in counts.items():
                j = self.column.get(t)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
                    vals.append(float(c))
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(queries), len(self.df)))

    def scores(self, counts: sp.csr_matrix, q: float) -> np.ndarray:
        """Dense queries x documents scores at ``q``."""
        w = counts.multiply(self.idf(q)[None, :]).tocsr()
        return np.asarray((w @ self.tfn_t).todense())

    def ranks(self, counts: sp.csr_matrix, gold: np.ndarray, q: float,
              batch: int = 256) -> np.ndarray:
        """1-based rank of each query's gold document (a gold with score 0 ranks last).
        Scores are documents x queries over the batch's own terms only."""
        out = np.empty(counts.shape[0], dtype=np.int64)
        idf = self.idf(q)
        docs = np.arange(self.tfn_csc.shape[0])[:, None]
        for s in range(0, counts.shape[0], batch):
            c = counts[s:s + batch].tocsr()
            cols = np.unique(c.indices)
            weights = c[:, cols].toarray() * idf[cols][None, :]
            sc = np.asarray(self.tfn_csc[:, cols] @ weights.T)
            g = gold[s:s + batch]
            mine = sc[g, np.arange(len(g))]
            above = (sc > mine[None, :]).sum(axis=0)
            tied = ((sc == mine[None, :]) & (docs < g[None, :])).sum(axis=0)
            out[s:s + batch] = np.where(mine > 0, above + tied + 1, sc.shape[0] + 1)
        return out


def ndcg10(ranks: np.ndarray) -> np.ndarray:
    """NDCG@10 of one relevant document at each rank."""
    return np.where(ranks <= 10, 1.0 / np.log2(ranks + 1.0), 0.0)
