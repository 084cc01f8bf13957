"""The df histogram: how many terms, and how many token occurrences, fall in each df band."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class DfBin:
    """Terms whose df falls in [low, high] and the token occurrences they account for."""

    label: str
    low: int
    high: int
    terms: float
    tokens: float


def df_bins(max_df: int) -> list[tuple[int, int]]:
    """1, 2, 3-10, 11-100, ... up to the first bin that holds ``max_df``."""
    bins = [(1, 1), (2, 2), (3, 10)]
    while bins[-1][1] < max_df:
        high = bins[-1][1]
        bins.append((high + 1, high * 10))
    return bins


def histogram(df: np.ndarray, terms: np.ndarray, tokens: np.ndarray) -> list[DfBin]:
    """Sum ``terms`` and ``tokens`` weights of items (terms, or sampled entries) by df bin."""
    bins = df_bins(int(df.max()) if len(df) else 1)
    which = np.searchsorted([high for _, high in bins], df)
    term_sums = np.bincount(which, weights=terms, minlength=len(bins))
    token_sums = np.bincount(which, weights=tokens, minlength=len(bins))
    return [DfBin(str(lo) if lo == hi else f"{lo}-{hi}", lo, hi, _num(t), _num(k))
            for (lo, hi), t, k in zip(bins, term_sums, token_sums, strict=True)]


def _num(x: float) -> float:
    """Whole numbers as int (exact counts), others as float (estimates)."""
    return round(x) if abs(x - round(x)) < 1e-6 else float(x)
