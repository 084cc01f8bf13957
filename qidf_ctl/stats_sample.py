"""Per-document counts, the four hapax densities, and the sample design with its intervals.

Every density is a ratio of two totals of per-document counts, so an exact pass, a sample
and a bootstrap resample all go through the same few lines. With n_i tokens in document i,
h_i of them belonging to terms whose df is 1, u_i distinct such terms, and
w_i = sum over the document's distinct terms of 1/df:

- tokens:          sum h / sum n      (share of token occurrences whose term has df = 1)
- vocab:           sum u / sum w      (a df = 1 term lives in one document; sum w = vocabulary)
- types_per_token: sum u / sum n
- doc_mean:        sum (h_i / n_i) / number of documents with tokens

Why the sample is stratified: on code, h_i is extremely heavy-tailed. In 100,000 real
functions the ten largest residuals carry 87% of the variance of the ratio estimator and the
longest 1% of documents carry 99.5%; a plain uniform sample of 5,000 has a standard error of
0.015 on the token share and its bootstrap interval misses the truth about one time in five.
Reading the longest documents in full (a take-all stratum) and sampling the rest uniformly cuts
the standard error about twelvefold; its 95% percentile-bootstrap intervals then cover 91-96%
of the time over repeated samples (on that index, on Go docstrings and on synthetic data).
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
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
TAKE_ALL_SHARE = 0.2  # of the sample: the longest documents, read in full
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


def per_doc(
    term_ids: np.ndarray, tfs: np.ndarray, lengths: np.ndarray, df: np.ndarray,
    hapax: np.ndarray | None = None,
) -> DocCounts:
    """Per-document counts from the flat (term id, tf) entries of consecutive documents.

    ``lengths`` is the number of distinct terms of each document (0 for none); ``df`` is
    indexed by term id; ``hapax`` (default ``df == 1``) marks the terms that count as df = 1.
    """
    ndocs = len(lengths)
    doc = np.repeat(np.arange(ndocs), lengths)
    tf = tfs.astype(np.float64)
    is_hapax = (df == 1 if hapax is None else hapax)[term_ids]
    inv = np.zeros(len(df), dtype=np.float64)
    np.divide(1.0, df, out=inv, where=df > 0)

    def per(weights: np.ndarray) -> np.ndarray:
        return np.bincount(doc, weights=weights, minlength=ndocs)

    return DocCounts(
        tokens=np.rint(per(tf)).astype(np.int64),
        hapax_tokens=np.rint(per(tf * is_hapax)).astype(np.int64),
        hapax_types=np.rint(per(is_hapax.astype(np.float64))).astype(np.int64),
        inv_df=per(inv[term_ids]),
    )


def _from_totals(t: np.ndarray) -> dict[str, np.ndarray]:
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
    return {k: float(v) for k, v in _from_totals(totals).items()}


@dataclass
class Stratified:
    """The longest documents read in full, plus a uniform sample of the rest.

    ``rest_size`` is how many documents the sample was drawn from (without replacement);
    each sampled document stands for rest_size / len(sample) of them.
    """

    take_all: DocCounts
    sample: DocCounts
    rest_size: int

    @property
    def weight(self) -> float:
        return self.rest_size / len(self.sample) if len(self.sample) else 0.0

    def totals(self) -> np.ndarray:
        """Estimated population totals of the six columns."""
        return self.take_all.columns().sum(axis=0) + self.weight * self.sample.columns().sum(
            axis=0)

    def densities(self) -> dict[str, float]:
        return {k: float(v) for k, v in _from_totals(self.totals()).items()}

    def intervals(
        self, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES,
        confidence: float = CONFIDENCE,
    ) -> dict[str, tuple[float, float]]:
        """Percentile bootstrap over the sampled documents (the take-all stratum is fixed),
        narrowed by the finite-population correction sqrt(1 - n/N): zero width when the
        sample is the whole rest."""
        point = self.densities()
        n = len(self.sample)
        if n == 0:
            return {k: (v, v) for k, v in point.items()}
        cols = self.sample.columns()
        base = self.take_all.columns().sum(axis=0)
        rng = np.random.default_rng(seed)
        draws: dict[str, list[np.ndarray]] = {name: [] for name in DENSITIES}
        chunk = max(1, min(resamples, 4_000_000 // n))
        done = 0
        while done < resamples:
            k = min(chunk, resamples - done)
            picks = rng.integers(0, n, size=(k, n)) + (np.arange(k) * n)[:, None]
            weights = np.bincount(picks.ravel(), minlength=k * n).reshape(k, n)
            for name, values in _from_totals(base + self.weight * (weights @ cols)).items():
                draws[name].append(values)
            done += k
        fpc = np.sqrt(max(0.0, 1.0 - n / self.rest_size)) if self.rest_size else 0.0
        alpha = (1.0 - confidence) / 2
        out: dict[str, tuple[float, float]] = {}
        for name, parts in draws.items():
            lo, hi = np.nanquantile(np.concatenate(parts), [alpha, 1 - alpha])
            est = point[name]
            out[name] = (float(est - (est - lo) * fpc), float(est + (hi - est) * fpc))
        return out


def take_all_size(n: int) -> int:
    return int(n * TAKE_ALL_SHARE)


def draw(population: DocCounts, sizes: np.ndarray, n: int, seed: int) -> Stratified:
    """The design ``stats`` uses on a cluster, drawn from known per-document counts: the
    ``take_all_size(n)`` largest by ``sizes``, then a seeded uniform sample of the rest.
    For simulations and the calibration test; the cluster version ranks by source length."""
    order = np.argsort(-np.asarray(sizes), kind="stable")
    k = take_all_size(n)
    rest = order[k:]
    rng = np.random.default_rng(seed)
    picked = rng.choice(rest, size=min(n - k, len(rest)), replace=False)
    return Stratified(population.take(order[:k]), population.take(picked), len(rest))
