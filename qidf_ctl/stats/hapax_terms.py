"""What the df = 1 terms themselves look like: long, with digits or joints, or glued words.

The hapax densities count df = 1 material; these shares describe it. On code under a
generic analyzer the df = 1 terms are mostly whole identifiers (``handlewebsocketupgrade``,
``max_retry_count``, ``os.path``): long, often joined by ``_`` or ``.``, and often several
ordinary words glued together. On prose they are mostly names, typos and rare words. Every
number is a share over df = 1 terms (not per token, not per document), so it has no direct
size term; which terms have df = 1 still changes with the corpus, which is why the
predictor study measures these shares at several sizes before trusting any.

"Glued" (``concatenation``) asks the field's own vocabulary instead of a dictionary: a
df = 1 term of letters only is a concatenation when it splits into two or three parts of at
least ``PART_MIN`` letters that are each a term of the field with df >= ``COMMON_DF``
(``getvalue`` = ``get`` + ``value``). No word list ships with qidf, so this works for any
language the field holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

LONG_TERM = 12  # characters
PART_MIN = 3
COMMON_DF = 5
MAX_TERMS = 20_000  # df = 1 terms read per field: a seeded sample beyond this (a share)
_JOINT = re.compile(r"[A-Za-z0-9][_.:'][A-Za-z0-9]")
_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[^\W\d_]+")

DEFINITIONS: dict[str, tuple[str, str]] = {
    "hapax_mean_length": ("mean length of the df = 1 terms", "characters per df = 1 term"),
    "hapax_long_share": ("share of long df = 1 terms",
                         f"df = 1 terms of {LONG_TERM} or more characters"),
    "hapax_digit_share": ("share of df = 1 terms with a digit", "df = 1 terms holding 0-9"),
    "hapax_joint_share": ("share of joined df = 1 terms",
                          "df = 1 terms with _ . : or ' between two letters or digits"),
    "hapax_glued_share": (
        "share of glued df = 1 terms",
        f"letters-only df = 1 terms that split into 2-3 parts of >= {PART_MIN} letters, each "
        f"a term of the field with df >= {COMMON_DF}"),
}


@dataclass(frozen=True)
class HapaxTerms:
    """Shape shares of a field's df = 1 terms (weighted estimates when sampled)."""

    terms: int  # df = 1 terms looked at
    hapax_mean_length: float
    hapax_long_share: float
    hapax_digit_share: float
    hapax_joint_share: float
    hapax_glued_share: float


def glued(term: str, common: frozenset[str] | set[str], parts: int = 3) -> bool:
    """``term`` is 2..``parts`` common terms of at least PART_MIN letters, concatenated."""

    @cache
    def split(rest: str, left: int) -> bool:
        if rest in common and len(rest) >= PART_MIN:
            return True
        if left <= 1:
            return False
        return any(rest[:i] in common and split(rest[i:], left - 1)
                   for i in range(PART_MIN, len(rest) - PART_MIN + 1))

    return len(term) >= 2 * PART_MIN and any(
        term[:i] in common and split(term[i:], parts - 1)
        for i in range(PART_MIN, len(term) - PART_MIN + 1))


def hapax_terms(words: Sequence[str], df: np.ndarray,
                weights: np.ndarray | None = None, seed: int = 0) -> HapaxTerms:
    """Shape shares of the terms with ``df == 1``; ``weights`` (one per term, default 1)
    is how many df = 1 terms of the index each stands for (the sample design's weight).
    Beyond MAX_TERMS df = 1 terms, a seeded uniform sample of them is read."""
    df = np.asarray(df)
    ids = np.flatnonzero(df == 1)
    if len(ids) > MAX_TERMS:
        ids = np.sort(np.random.default_rng(seed).choice(ids, MAX_TERMS, replace=False))
    w = np.ones(len(ids)) if weights is None else np.asarray(weights, dtype=float)[ids]
    total = float(w.sum())
    if not len(ids) or total <= 0:
        nan = math.nan
        return HapaxTerms(0, nan, nan, nan, nan, nan)
    common = {words[int(i)] for i in np.flatnonzero(df >= COMMON_DF)}
    terms = [words[int(i)] for i in ids]

    def share(flags: Sequence[bool]) -> float:
        return float(np.dot(w, np.asarray(flags, dtype=float)) / total)

    return HapaxTerms(
        terms=len(ids),
        hapax_mean_length=float(np.dot(w, [len(t) for t in terms]) / total),
        hapax_long_share=share([len(t) >= LONG_TERM for t in terms]),
        hapax_digit_share=share([bool(_DIGIT.search(t)) for t in terms]),
        hapax_joint_share=share([bool(_JOINT.search(t)) for t in terms]),
        hapax_glued_share=share([_LETTERS.fullmatch(t) is not None and glued(t, common)
                                 for t in terms]),
    )
