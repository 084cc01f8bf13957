"""``qidf sweep`` in its two modes on the same index and queries: wall time, where it goes,
and the curve.

The settings mode installs each q (validate on a scratch index, close, update, open) and
restores the index at the end; the query-time mode reads the statistics once and sends
boosted queries. Both analyse the queries themselves, as the CLI does. They alternate, and
which goes first alternates too, so that bursts of load from other processes on this shared
machine do not fall on one mode; the medians over repeats are reported.

The library's own functions are wrapped with timers (nothing else changes), so each sweep's
time splits into analysing the queries, searching, and what each mode adds: installing and
restoring the similarity, or reading statistics and building the boosted queries. Searching
is the same work in both modes; the difference is in the last part.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from qidf_ctl import install
from qidf_ctl.evaluation import RetrievalTask, runs
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.querytime import QueryTime
from qidf_ctl.similarity import Mode

Log = Callable[[str], None]
PHASES = {  # phase -> (object, attribute) whose calls it times
    "analyse": (sweep_lib, "analyze_queries"),
    "search": (runs, "search_run"),
    "install": (install, "apply"),
    "restore": (install, "revert"),
    "build": (QueryTime, "queries"),
}


@contextmanager
def phase_timers() -> Iterator[dict[str, float]]:
    spent: dict[str, float] = defaultdict(float)

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0
        return wrapper

    with ExitStack() as stack:
        for name, (owner, attr) in PHASES.items():
            stack.enter_context(mock.patch.object(owner, attr, timed(name, getattr(owner, attr))))
        yield spent


def time_sweeps(cluster: Any, index: str, task: RetrievalTask, grid: tuple[float, ...],
                repeats: int, modes: tuple[Mode, ...], log: Log) -> dict[str, Any]:
    """Each repeat runs the settings mode once per installed similarity in ``modes`` and the
    query-time mode once, in a rotating order."""
    variants = [(f"settings_{m.value}", m, False) for m in modes]
    variants.append(("query_time", Mode.SCRIPT, True))
    names = [v[0] for v in variants]
    out: dict[str, Any] = {"queries": len(task.queries), "grid": list(grid),
                           "variants": names, "repeats": []}
    curves: dict[str, list[float]] = {}
    for r in range(repeats):
        row: dict[str, Any] = {}
        shift = r % len(variants)
        for name, mode, query_time in variants[shift:] + variants[:shift]:
            with phase_timers() as spent:
                t0 = time.perf_counter()
                result = sweep_lib.sweep(cluster, index, task.queries, task.qrels, grid=grid,
                                         mode=mode, query_time=query_time)
                total = time.perf_counter() - t0
            row[f"{name}_seconds"] = total
            row[f"{name}_phases"] = {**spent, "other": total - sum(spent.values())}
            curves[name] = [p.ndcg10 for p in result.points]
            log(f"sweep {r + 1}/{repeats} {name}: {total:.1f}s "
                f"({', '.join(f'{k} {v:.1f}s' for k, v in row[f'{name}_phases'].items())})")
        out["repeats"].append(row)
    rows = out["repeats"]
    for name in names:
        out[f"{name}_seconds_median"] = statistics.median(x[f"{name}_seconds"] for x in rows)
        out[f"{name}_phases_median"] = {
            phase: statistics.median(x[f"{name}_phases"].get(phase, 0.0) for x in rows)
            for phase in (*PHASES, "other")}
    for name in names:  # after every median: query_time's is the last one computed
        out[f"{name}_speedup_of_query_time"] = (out[f"{name}_seconds_median"]
                                                / out["query_time_seconds_median"])
    out["curves"] = curves
    out["curves_identical"] = all(c == curves["query_time"] for c in curves.values())
    out["max_curve_difference"] = max(abs(a - b) for c in curves.values()
                                       for a, b in zip(c, curves["query_time"], strict=True))
    return out
