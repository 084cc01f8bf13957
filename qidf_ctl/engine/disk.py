"""How full the disk under a local node's data is, read against the engine's disk watermarks.

OpenSearch and Elasticsearch share the defaults: above 85% used (the low watermark) no shard
is assigned to the node, other than the primaries of a new index, so the replicas of a cluster
of several nodes never assign and it stays yellow; above 90% (high) shards move away; above
95% (the flood stage) every index with a shard there turns read-only, so indexing and
``qidf apply`` fail. A node started on such a disk runs, and says nothing; ``engine start``
says it instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qidf_ctl.engine.config import EngineConfig

LOW = 0.85
HIGH = 0.90
FLOOD = 0.95


def used_share(path: Path) -> float:
    """The share of the file system holding ``path`` that is in use (the nearest existing
    parent when ``path`` does not exist yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    usage = shutil.disk_usage(path)
    return usage.used / usage.total if usage.total else 0.0


def watermark_warning(used: float, nodes: int) -> str | None:
    """One line for a disk at ``used`` (0-1) under a local node or cluster of ``nodes``; None
    below the low watermark."""
    pct = f"{used:.0%}"
    fix = ("free disk space (or move QIDF_HOME to a larger disk) and start again; the "
           "engine's cluster.routing.allocation.disk.watermark.* settings name the limits")
    if used >= FLOOD:
        return (f"the disk under the node's data is {pct} full, past the engine's flood stage "
                f"({FLOOD:.0%}): its indices turn read-only, so indexing and apply fail; {fix}")
    if used >= HIGH:
        return (f"the disk under the node's data is {pct} full, past the engine's high "
                f"watermark ({HIGH:.0%}): shards are moved off this disk and none is assigned "
                f"to it; {fix}")
    if used >= LOW and nodes > 1:
        return (f"the disk under the cluster's data is {pct} full, past the engine's low "
                f"watermark ({LOW:.0%}): replicas are not assigned, so the cluster stays "
                f"yellow; {fix}")
    if used >= LOW:
        return (f"the disk under the node's data is {pct} full, past the engine's low "
                f"watermark ({LOW:.0%}): new replicas are not assigned here and at "
                f"{FLOOD:.0%} indices turn read-only; {fix}")
    return None


def local_warning(cfg: EngineConfig, nodes: int) -> str | None:
    """The warning for the disk under a local node's (or cluster's) data, from ``QIDF_HOME``;
    ``engine start`` and ``demo`` print it after starting the engine."""
    return watermark_warning(used_share(cfg.root), nodes)
