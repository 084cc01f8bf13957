"""``qidf sweep`` in its two modes on the same index and queries: wall time and the curve.

The settings mode installs each q (validate on a scratch index, close, update, open) and
restores the index at the end; the query-time mode reads the statistics once and sends
boosted queries. Both analyse the queries themselves, as the CLI does. They alternate,
settings first, so that a burst of load from other processes does not fall on one mode.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from qidf_ctl.evaluation import RetrievalTask
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.similarity import Mode

Log = Callable[[str], None]


def time_sweeps(cluster: Any, index: str, task: RetrievalTask, grid: tuple[float, ...],
                repeats: int, mode: Mode, log: Log) -> dict[str, Any]:
    out: dict[str, Any] = {"queries": len(task.queries), "grid": list(grid),
                           "settings_mode": mode.value, "repeats": []}
    curves: dict[str, list[float]] = {}
    for r in range(repeats):
        row: dict[str, Any] = {}
        for name, query_time in (("settings", False), ("query_time", True)):
            t0 = time.monotonic()
            result = sweep_lib.sweep(cluster, index, task.queries, task.qrels, grid=grid,
                                     mode=mode, query_time=query_time)
            row[f"{name}_seconds"] = time.monotonic() - t0
            curves[name] = [p.ndcg10 for p in result.points]
            row[f"{name}_baseline_ndcg10"] = result.baseline_ndcg10
            log(f"sweep {r + 1}/{repeats} {name}: {row[f'{name}_seconds']:.1f}s, "
                f"NDCG@10 {' '.join(f'{v:.4f}' for v in curves[name])}")
        row["speedup"] = row["settings_seconds"] / row["query_time_seconds"]
        out["repeats"].append(row)
    out["curves"] = curves
    out["curves_identical"] = curves["settings"] == curves["query_time"]
    out["max_curve_difference"] = max(abs(a - b) for a, b in zip(
        curves["settings"], curves["query_time"], strict=True))
    return out
