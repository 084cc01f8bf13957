"""The statistics part of an index's plan item (the target's ``stats``): which statistics its
scoring searches will use, the default search pipeline change that gives them, and what
per-shard statistics cost where qidf cannot run its pipeline (a note ``check`` prints)."""

from __future__ import annotations

from qidf_ctl.cluster import Cluster
from qidf_ctl.desired.items import NONE, UPDATE, PlanItem
from qidf_ctl.install import SimilarityState, scope
from qidf_ctl.install.pipeline import SETTING
from qidf_ctl.install.target import resolve_target


def add_stats(item: PlanItem, cluster: Cluster, state: SimilarityState, wanted: str) -> None:
    """Plan ``wanted`` statistics (``index``, ``shard`` or ``auto``) into ``item``."""
    key = resolve_target(cluster, state.index, allow_hidden=True).key
    chosen, reason = scope.resolve(cluster, wanted, state.description.shards)
    found = scope.plan(cluster, state, key, chosen, reason)
    item.stats = found.scope
    item.stats_before = scope.describe_scope(scope.current_scope(state.description.settings))
    if found.warning:
        item.notes.append(found.warning)
    if found.new is None:
        return
    if found.new.setting != found.old.setting:
        item.settings_diff.append({"key": SETTING, "before": found.old.setting,
                                   "after": found.new.setting})
    if found.new.setting == found.pipeline:
        item.notes.append(f"search pipeline {found.pipeline}: "
                          + ", ".join(next(iter(p)) for p in
                                      (found.new.body or {}).get("request_processors", []))
                          + " (request processors, in order); no close")
    why = (f"searches use {item.stats_before}, want {found.describe()}"
           if found.new != found.old else "qidf's record of the statistics is out of date")
    if item.action == NONE:
        item.action, item.reason, item.stats_only = UPDATE, why, True
    else:
        item.reason += f"; {why}"
