"""The statistics part of an index's plan item (the target's ``stats``): which statistics its
scoring searches will use, the default search pipeline change or the statistics snapshot that
gives them, and what per-shard statistics cost where qidf cannot give them (a note ``check``
prints)."""

from __future__ import annotations

from qidf_ctl.cluster import Cluster
from qidf_ctl.desired.items import NONE, UPDATE, PlanItem
from qidf_ctl.install import SimilarityState, scope
from qidf_ctl.install.pipeline import SETTING
from qidf_ctl.install.target import resolve_target
from qidf_ctl.similarity import Mode
from qidf_ctl.stats import snapshot as snapshot_api

SNAPSHOT_SETTING = f"index.similarity.default.{snapshot_api.SETTING}"


def add_stats(item: PlanItem, cluster: Cluster, state: SimilarityState, wanted: str) -> None:
    """Plan ``wanted`` statistics (``index``, ``snapshot``, ``shard`` or ``auto``) into
    ``item``."""
    key = resolve_target(cluster, state.index, allow_hidden=True).key
    mode = Mode(item.mode) if item.mode else None
    chosen, reason = scope.resolve(cluster, wanted, state.description.shards, mode)
    found = scope.plan(cluster, state, key, chosen, reason)
    current_key = snapshot_api.key_of(state.description.settings)
    item.stats = found.scope
    item.stats_before = scope.describe_scope(scope.current_scope(state.description.settings),
                                             key=current_key)
    if found.warning:
        item.notes.append(found.warning)
    _add_snapshot(item, found, current_key)
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


def _add_snapshot(item: PlanItem, found: scope.StatsPlan, current_key: str | None) -> None:
    """A snapshot the similarity starts or stops naming changes the similarity (a close or a
    clone, like any similarity change); one it names already is only taken again by apply,
    which is not drift (``qidf show`` says when a refresh is due)."""
    part = found.snapshot
    after = part.take if part is not None else current_key
    if part is None or after == current_key:
        return
    item.settings_diff.append({"key": SNAPSHOT_SETTING, "before": current_key,
                               "after": after})
    if after is not None:
        item.notes.append(f"statistics snapshot {after}: taken before the similarity changes "
                          "(the first time, one close or clone; `qidf snapshot refresh` later, "
                          "with no close)")
    why = f"searches use {item.stats_before}, want {found.describe()}"
    if item.action == NONE:
        item.action, item.reason = UPDATE, why
    else:
        item.reason += f"; {why}"
    item.stats_only = False
