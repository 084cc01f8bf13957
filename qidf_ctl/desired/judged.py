"""A target's ``judgments`` (qidf.toml): its judged queries decide q, as ``qidf apply --q auto
--judgments`` does, with the pinned predictor's label-free q as the guard's reference."""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.desired.model import Similarity
from qidf_ctl.progress import BarFactory, Progress


def judged_decision(cluster: Cluster, index: str, sim: Similarity, label_free: Any,
                    progress: Progress, bar: BarFactory) -> Any:
    """The decision of a target's ``judgments``: its judged queries through sweep's guard,
    the pinned predictor's q (``label_free``) as the reference."""
    from qidf_ctl.judgments import source as sources
    from qidf_ctl.judgments.decide import decide

    assert sim.judgments is not None
    where = sources.parse_source(sim.judgments, "judgments")
    found = sources.load(where, lambda: cluster, progress=progress, option="judgments")
    decision = decide(cluster, index, found, field_name=sim.field,
                      reference=(label_free.q, label_free.predictor), progress=progress,
                      bar=bar)
    decision.judgments["spec"] = where.spec
    return decision
