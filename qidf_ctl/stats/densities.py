"""The hapax densities: per-document counts, and the four densities as ratios of their totals.

This is the one definition of every density qidf reports; the benchmark imports it. Each has
a key (in JSON), a name that says what it counts (``NAMES``: no two are called "hapax
density") and a definition (``DENSITIES``). With n_i
tokens in document i, h_i of them belonging to terms whose df is 1, u_i distinct such terms,
and w_i = sum over the document's distinct terms of 1/df:

- tokens:          sum h / sum n      (share of token occurrences whose term has df = 1)
- vocab:           sum u / sum w      (a df = 1 term lives in one document; sum w = vocabulary)
- types_per_token: sum u / sum n
- doc_mean:        sum (h_i / n_i) / number of documents with tokens

Every density is a ratio of two totals, so an exact pass, a sample and a bootstrap resample
all go through the same few lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DENSITIES: dict[str, str] = {
    "tokens": "share of token occurrences whose term has df = 1",
    "vocab": "share of the vocabulary with df = 1",
    "types_per_token": "df = 1 terms per token",
    "doc_mean": "per-document mean of the share of its tokens whose term has df = 1",
}
NAMES: dict[str, str] = {
    "tokens": "hapax token share",  # the paper's h_tok, as qidf reads it
    "vocab": "hapax vocabulary share",
    "types_per_token": "hapax terms per token",
    "doc_mean": "mean per-document hapax token share",
}
_N, _H, _U, _W, _SHARE, _HAS = range(6)


@dataclass
class DocCounts:
    """One row per document read (documents without tokens in the field have zeros)."""

    tokens: np.ndarray  # n_i
    hapax_tokens: np.ndarray  # h_i
    hapax_types: np.ndarray  # u_i
    inv_df: np.ndarray  # w_i

    def __len__(self) -> int:
        return len(self.tokens)

    def take(self, idx: np.ndarray | slice) -> DocCounts:
        return DocCounts(self.tokens[idx], self.hapax_tokens[idx], self.hapax_types[idx],
                         self.inv_df[idx])

    def columns(self) -> np.ndarray:
        """(rows, 6): n, h, u, w, h/n (0 without tokens), has tokens."""
        n = self.tokens.astype(np.float64)
        share = np.divide(self.hapax_tokens, n, out=np.zeros_like(n), where=n > 0)
        return np.column_stack([n, self.hapax_tokens, self.hapax_types, self.inv_df, share,
                                n > 0]).astype(np.float64)


# (term, document) entries per step of ``per_doc``: bounds its temporaries (about 40 bytes
# an entry) however many documents an exact pass read.
CHUNK_ENTRIES = 1 << 23


def doc_chunks(lengths: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(first doc, end doc, first entry, end entry) of consecutive runs of whole documents
    holding about CHUNK_ENTRIES entries each (a longer document is a run of its own)."""
    ends = np.cumsum(lengths, dtype=np.int64)
    out = []
    d0, e0 = 0, 0
    while d0 < len(lengths):
        d1 = max(int(np.searchsorted(ends, e0 + CHUNK_ENTRIES, side="right")), d0 + 1)
        e1 = int(ends[d1 - 1])
        out.append((d0, d1, e0, e1))
        d0, e0 = d1, e1
    return out


def per_doc(
    term_ids: np.ndarray, tfs: np.ndarray, lengths: np.ndarray, df: np.ndarray,
    hapax: np.ndarray | None = None,
) -> DocCounts:
    """Per-document counts from the flat (term id, tf) entries of consecutive documents.

    ``lengths`` is the number of distinct terms of each document (0 for none); ``df`` is
    indexed by term id; ``hapax`` (default ``df == 1``) marks the terms that count as df = 1.
    Computed a run of documents at a time (``doc_chunks``).
    """
    is_hapax = df == 1 if hapax is None else hapax
    inv = np.zeros(len(df), dtype=np.float64)
    np.divide(1.0, df, out=inv, where=df > 0)
    parts = [_per_doc_run(term_ids[e0:e1], tfs[e0:e1], lengths[d0:d1], is_hapax, inv)
             for d0, d1, e0, e1 in doc_chunks(lengths)] or [
        _per_doc_run(term_ids, tfs, lengths, is_hapax, inv)]  # no documents: empty counts
    return DocCounts(*(np.concatenate([getattr(p, name) for p in parts])
                       for name in ("tokens", "hapax_tokens", "hapax_types", "inv_df")))


def _per_doc_run(term_ids: np.ndarray, tfs: np.ndarray, lengths: np.ndarray,
                 is_hapax_term: np.ndarray, inv: np.ndarray) -> DocCounts:
    ndocs = len(lengths)
    doc = np.repeat(np.arange(ndocs), lengths)
    tf = tfs.astype(np.float64)
    is_hapax = is_hapax_term[term_ids]

    def per(weights: np.ndarray) -> np.ndarray:
        return np.bincount(doc, weights=weights, minlength=ndocs)

    return DocCounts(
        tokens=np.rint(per(tf)).astype(np.int64),
        hapax_tokens=np.rint(per(tf * is_hapax)).astype(np.int64),
        hapax_types=np.rint(per(is_hapax.astype(np.float64))).astype(np.int64),
        inv_df=per(inv[term_ids]),
    )


def term_totals(term_ids: np.ndarray, tfs: np.ndarray, vocabulary: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each term's df and total term frequency over the entries, counted CHUNK_ENTRIES at
    a time (``np.bincount`` copies its input to 64 bits)."""
    df = np.zeros(vocabulary, dtype=np.int64)
    ttf = np.zeros(vocabulary, dtype=np.float64)
    for start in range(0, len(term_ids), CHUNK_ENTRIES):
        ids = term_ids[start:start + CHUNK_ENTRIES]
        df += np.bincount(ids, minlength=vocabulary)
        ttf += np.bincount(ids, weights=tfs[start:start + CHUNK_ENTRIES], minlength=vocabulary)
    return df, ttf


def from_totals(t: np.ndarray) -> dict[str, np.ndarray]:
    """Densities from totals (last axis: n, h, u, w, share, has)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"tokens": t[..., _H] / t[..., _N], "vocab": t[..., _U] / t[..., _W],
                "types_per_token": t[..., _U] / t[..., _N],
                "doc_mean": t[..., _SHARE] / t[..., _HAS]}


def densities(counts: DocCounts, vocabulary: int | None = None) -> dict[str, float]:
    """The four densities of a whole population; ``vocabulary`` (exact mode) replaces the
    float sum of 1/df."""
    totals = counts.columns().sum(axis=0)
    if vocabulary is not None:
        totals[_W] = vocabulary
    return {k: float(v) for k, v in from_totals(totals).items()}
