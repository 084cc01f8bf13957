"""Measure q on an index from an unlabeled query sample (the package docstring says how).

The sweep goes through the query-time path: each q is built into the simulated queries as
term boosts (``qidf_ctl.querytime``, measured to rank as the installed similarity does), so
the index is never changed and read privileges are enough. On an index of several shards the
statistics are index-wide and the searches ``dfs_query_then_fetch``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation import runs
from qidf_ctl.measured import probe
from qidf_ctl.measured.simulate import SimulatedQuery, argmax, null_max, simulate
from qidf_ctl.progress import BarFactory, no_bar
from qidf_ctl.querytime import QueryTime

GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
COARSE = (0.1, 0.3, 0.5, 0.7, 1.0)  # searched first; then the best one's grid neighbours


def refine(grid: Sequence[float], curve: dict[float, float]) -> list[float]:
    """The grid neighbours of the best q measured so far that are not measured yet: the full
    grid's argmax when the curve has one peak, in 7 searches per query instead of 11."""
    best = argmax(curve)
    i = list(grid).index(best)
    return [q for q in grid[max(i - 1, 0):i + 2] if q not in curve]
NAME = "measured q (simulated known-item queries)"
DEFINITION = ("the q of the grid at which the queries made from the sample's templates find "
              "their answers best (mean NDCG@10): each template's rare tokens (df <= sqrt(N)) "
              "that one document holds together moved to a random document of the index with "
              "the nearest df, which is the answer")


@dataclass
class MeasuredQ:
    """The measured curve and its best q, with what it was measured on."""

    q: float
    curve: dict[float, float]
    templates: int  # sample queries read
    simulated: int  # simulated queries searched
    documents: int
    seconds: float
    parts: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"q": self.q, "curve": {f"{q:g}": v for q, v in self.curve.items()},
                "templates": self.templates, "simulated": self.simulated,
                "documents": self.documents, "seconds": round(self.seconds, 2),
                "parts": {k: round(v, 2) for k, v in self.parts.items()},
                "name": NAME, "definition": DEFINITION}


def _ndcg(run: runs.Run, sims: Sequence[SimulatedQuery]) -> float:
    total = 0.0
    for i, s in enumerate(sims):
        docs = [d for d, _ in run.get(str(i), [])[:10]]
        if s.answer in docs:
            total += 1.0 / math.log2(docs.index(s.answer) + 2)
    return total / len(sims)


def measure_q(cluster: Cluster, index: str, texts: Sequence[str], field_name: str | None = None,
              *, grid: Sequence[float] = GRID, seed: int = 0, null: bool = True,
              bar: BarFactory = no_bar) -> MeasuredQ:
    """The q of ``grid`` whose simulated known items are found best (``texts``: the sample's
    query texts; ``null``: use only templates whose anchor beats random placement)."""
    started = time.monotonic()
    parts: dict[str, float] = {}
    qt = QueryTime.connect(cluster, index, 1.0, field_name)
    target = qt.target
    with bar("reading the query sample's tokens", len(texts)) as advance:
        tpls, n = probe.templates(qt, texts, advance)
    parts["tokens"] = time.monotonic() - started
    rare = [t.rare(n) for t in tpls]
    asked = [i for i, r in enumerate(rare) if r]
    with bar("finding each query's anchor document", len(asked)) as advance:
        found = probe.anchors(cluster, target.index, target.field, [rare[i] for i in asked],
                              advance)
    parts["anchors"] = time.monotonic() - started - sum(parts.values())
    pool = probe.pool(cluster, target.index, target.field, seed=seed)
    parts["pool"] = time.monotonic() - started - sum(parts.values())
    rng = random.Random(seed)
    sims: list[SimulatedQuery] = []
    for i, (doc, held) in zip(asked, found, strict=True):
        tpl = tpls[i]
        if not doc or (null and len(held) <= null_max([tpl.df[t] for t in rare[i]], n)):
            continue
        s = simulate(tpl, held, doc, pool, n, rng)
        if s is not None:
            sims.append(s)
    curve: dict[float, float] = {}
    if sims:
        terms = {str(i): s.counts for i, s in enumerate(sims)}
        first = [q for q in COARSE if q in grid] or list(grid)
        with bar("searching the simulated queries at each q", (len(first) + 2) * len(sims)
                 ) as advance:
            todo = first
            while todo:
                for q in todo:
                    curve[q] = _ndcg(runs.search_run(
                        cluster, target.index, target.field, terms, k=10, advance=advance,
                        queries=None if q == 1.0 else qt.queries(terms, q)), sims)
                todo = refine(grid, curve)
    parts["sweep"] = time.monotonic() - started - sum(parts.values())
    best = argmax(curve) if curve else 1.0
    return MeasuredQ(best, curve, len(tpls), len(sims), n, time.monotonic() - started, parts)
