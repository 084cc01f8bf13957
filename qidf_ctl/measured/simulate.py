"""Simulated known-item queries from real query templates (no cluster; unit-tested).

A template is one real query: its analysed tokens, repeat counts and df in the field. Its
*rare* tokens (df <= sqrt(N), the upper half of BM25's IDF scale) that one document holds
together (the *anchor*: the document holding most of them) are what points at an answer; a
simulated query keeps the template whole but moves those tokens to a target document: each
is replaced by a token of the target with the nearest df (log scale), so the target holds
what the anchor held, and the rest of the template (its length, its common tokens, its other
rare tokens and the documents they match) stays as real as the sample. The target is the
simulated query's known answer.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

DRAWS = 20  # target documents tried per template; the best df match is kept


def rare_limit(doc_count: int) -> float:
    """df <= sqrt(N): ln(N / df) >= ln(N) / 2."""
    return math.sqrt(doc_count)


def null_max(dfs: Sequence[int], doc_count: int) -> int:
    """The largest count c of these tokens that half a document is expected to reach (N
    P(count >= c) >= 1/2) when each token sits in df random documents of N: the count per
    document is Poisson-binomial over df / N."""
    dist = [1.0] + [0.0] * len(dfs)
    for df in dfs:
        p = min(1.0, df / doc_count) if doc_count else 0.0
        for k in range(len(dist) - 1, 0, -1):
            dist[k] = dist[k] * (1 - p) + dist[k - 1] * p
        dist[0] *= 1 - p
    tail = 0.0
    best = 0
    for c in range(len(dist) - 1, -1, -1):
        tail += dist[c]
        if doc_count * tail >= 0.5:
            best = c
            break
    return best


@dataclass(frozen=True)
class Template:
    """One real query: token -> repeat count, and token -> df (0: the field lacks it)."""

    counts: Mapping[str, int]
    df: Mapping[str, int]

    def rare(self, doc_count: int) -> list[str]:
        limit = rare_limit(doc_count)
        return [t for t in self.counts if 0 < self.df.get(t, 0) <= limit]


@dataclass(frozen=True)
class Target:
    """A document that can answer a simulated query: its id and its tokens' df."""

    doc_id: str
    df: Mapping[str, int]


@dataclass(frozen=True)
class SimulatedQuery:
    counts: Counter[str]
    answer: str
    moved: int  # tokens moved from the anchor to the answer


def _match(wanted: Sequence[tuple[str, int]], free: dict[str, int], doc_count: int
           ) -> tuple[list[str], float]:
    """Greedy nearest-df tokens of ``free`` for ``wanted`` (rarest first) and the summed
    |log df| mismatch; a wanted token left without a free one costs log N."""
    pool = dict(free)
    chosen: list[str] = []
    cost = 0.0
    for _, df in wanted:
        if not pool:
            cost += math.log(max(doc_count, 2))
            continue
        want = math.log(max(df, 1))
        token = min(pool, key=lambda t: (abs(math.log(max(pool[t], 1)) - want), t))
        cost += abs(math.log(max(pool[token], 1)) - want)
        chosen.append(token)
        del pool[token]
    return chosen, cost


def simulate(template: Template, anchor_tokens: Sequence[str], anchor_id: str,
             targets: Sequence[Target], doc_count: int, rng: random.Random,
             draws: int = DRAWS) -> SimulatedQuery | None:
    """The template with ``anchor_tokens`` (the rare tokens its anchor holds) moved to the
    best df match of ``draws`` random targets (never the anchor); None when nothing moves."""
    wanted = sorted(((t, template.df[t]) for t in anchor_tokens), key=lambda x: (x[1], x[0]))
    if not wanted or not targets:
        return None
    best: tuple[float, Target, list[str]] | None = None
    for _ in range(draws):
        target = targets[rng.randrange(len(targets))]
        if target.doc_id == anchor_id:
            continue
        free = {t: df for t, df in target.df.items() if df > 0 and t not in template.counts}
        chosen, cost = _match(wanted, free, doc_count)
        if best is None or cost < best[0]:
            best = (cost, target, chosen)
    if best is None or not best[2]:
        return None
    _, target, chosen = best
    counts = Counter({t: c for t, c in template.counts.items() if t not in set(anchor_tokens)})
    for (token, _), new in zip(wanted, chosen, strict=False):
        counts[new] = template.counts[token]
    return SimulatedQuery(counts, target.doc_id, len(chosen))


def argmax(curve: Mapping[float, float]) -> float:
    """The best q of a curve; ties (within 1e-12) go to the larger q, nearer BM25."""
    best = max(curve.values())
    return max(q for q, v in curve.items() if v >= best - 1e-12)
