"""Near-duplicate code detection (Allamanis 2018), as CodeSearchNet used it.

Two functions are near-duplicates when their identifier sets have Jaccard >= 0.8 and
their identifier multisets Jaccard >= 0.7. Left in, such copies inflate retrieval scores
(the query's twin is in the corpus), which is the bias Allamanis measured.

Candidate pairs come from prefix filtering (Chaudhuri et al. 2006): with tokens ordered by
rarity, two sets with Jaccard >= t share a token among their first |x| - ceil(t|x|) + 1
tokens, so the search is exact without comparing every pair.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

SET_THRESHOLD = 0.8
MULTISET_THRESHOLD = 0.7
MIN_IDENTIFIERS = 10


def _multiset_jaccard(a: Counter[str], b: Counter[str]) -> float:
    """Sum of minimum counts over sum of maximum counts."""
    inter = sum(min(n, b[t]) for t, n in a.items() if t in b)
    union = sum(a.values()) + sum(b.values()) - inter
    return inter / union if union else 1.0


def near_duplicates(
    docs: Sequence[Sequence[str]],
    *,
    set_threshold: float = SET_THRESHOLD,
    multiset_threshold: float = MULTISET_THRESHOLD,
    min_identifiers: int = MIN_IDENTIFIERS,
) -> set[int]:
    """Indices to drop so that each cluster of near-duplicates keeps its lowest index.

    Documents with fewer than ``min_identifiers`` identifier tokens are never matched: on
    tiny functions Jaccard is too coarse to tell a copy from a coincidence.
    """
    sets = [frozenset(d) for d in docs]
    df: Counter[str] = Counter()
    for s in sets:
        df.update(s)
    parent = list(range(len(docs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    index: dict[str, list[int]] = defaultdict(list)
    bags: dict[int, Counter[str]] = {}
    for i, s in enumerate(sets):
        if len(docs[i]) < min_identifiers or not s:
            continue
        ordered = sorted(s, key=lambda t: (df[t], t))
        prefix = len(ordered) - math.ceil(set_threshold * len(ordered) - 1e-9) + 1
        cands: set[int] = set()
        for t in ordered[:prefix]:
            cands.update(index[t])
            index[t].append(i)
        for j in cands:
            sj = sets[j]
            small, big = sorted((len(s), len(sj)))
            if small < set_threshold * big:
                continue
            inter = len(s & sj)
            if inter / (len(s) + len(sj) - inter) < set_threshold:
                continue
            bi = bags.setdefault(i, Counter(docs[i]))
            bj = bags.setdefault(j, Counter(docs[j]))
            if _multiset_jaccard(bi, bj) < multiset_threshold:
                continue
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    return {i for i in range(len(docs)) if find(i) != i}
