"""``recover``: settle an interrupted operation explicitly, and repair a ``_meta.qidf`` record
that disagrees with the settings (the statistics part too: a record of qidf's pipeline where
the index names another, or qidf's pipeline named but deleted by hand, or a statistics
snapshot named but missing, which is taken again). apply and revert do
the first themselves; ``recover`` is for an index a person wants made consistent now, or
whose stale lease needs ``--force``."""

from __future__ import annotations

import time

from qidf_ctl.cluster import Cluster
from qidf_ctl.install import pipeline, scope, snapshot
from qidf_ctl.install.operation import remove_stale_scratch, session
from qidf_ctl.install.record import disagreement, ensure_meta, read_meta, without_record
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.scope import RECORD_KEY
from qidf_ctl.install.state import META_KEY, SimilarityState, read_state
from qidf_ctl.install.target import resolve_target
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import same_settings


def _repair_record(cluster: Cluster, state: SimilarityState) -> str | None:
    """Make ``_meta.qidf`` describe the settings the index has; None when nothing to do."""
    why = disagreement(state.installed, state.record, state.similarity_flat)
    if why is None or state.record is None:
        return None
    meta = read_meta(cluster, state.index) or {}
    previous = state.record.get("previous", {})
    installed = state.installed
    if installed.kind == "qlog" and installed.params is not None and installed.mode:
        done = dict(state.record.get("installed") or {})
        done.update(installed.params.as_dict(), mode=installed.mode.value, repaired=True)
        if installed.legacy is not None:
            done["legacy_factor"] = installed.legacy
        ensure_meta(cluster, state.index, {**meta, META_KEY: {
            **state.record, "previous": previous, "installed": done}})
        return f"{why}: the record now describes the settings"
    if same_settings(state.similarity_flat, previous):
        stats = state.record.get(RECORD_KEY)  # the statistics part stays recorded
        ensure_meta(cluster, state.index, {**meta, META_KEY: {RECORD_KEY: stats}}
                    if stats else without_record(meta))
        return f"{why}: the settings are the recorded previous ones, so the record was removed"
    return None


def _repair_stats(cluster: Cluster, state: SimilarityState, key: str) -> str | None:
    """Make ``_meta.qidf.stats`` agree with the default pipeline setting: dropped when the
    index no longer names qidf's pipeline; the pipeline written again (from the user
    pipeline it composes) when the index names it and it is gone."""
    found = scope.inspect(cluster, state, key)
    recorded = (state.record or {}).get(RECORD_KEY)
    meta = read_meta(cluster, state.index) or {}
    if recorded and recorded.get("pipeline") and not found["qidf_pipeline"]:
        rest = {k: v for k, v in (state.record or {}).items() if k != RECORD_KEY}
        ensure_meta(cluster, state.index, {**meta, META_KEY: rest} if rest
                    else without_record(meta))
        return (f"_meta.qidf.stats names {recorded.get('pipeline')}, but the index's default "
                f"search pipeline is {found['default_pipeline'] or 'not set'}: the record "
                "was removed")
    taken = snapshot.repair(cluster, state, key, found.get("snapshot"))
    if taken:
        return taken
    pid = found["qidf_pipeline"]
    if pid and pipeline.get_pipeline(cluster, pid) is None:
        user = (recorded or {}).get("composes")
        # As the index it belongs to made it (another index's, for one cloned from it).
        body = pipeline.compose(pipeline.owner_key(pid), user,
                                pipeline.get_pipeline(cluster, user) if user else None)
        pipeline.put_pipeline(cluster, pid, body)
        return f"the index's default search pipeline {pid} was missing: written again"
    return None


def recover(cluster: Cluster, name: str, *, force: bool = False,
            progress: Progress = quiet) -> ChangeResult:
    """Finish or roll back an interrupted qidf operation on ``name`` (``force`` breaks a
    lease that still looks alive, with a warning), remove dead runs' scratch indices, and
    repair a record that disagrees with the settings."""
    started = time.monotonic()
    target = resolve_target(cluster, name, allow_hidden=True)
    with session(cluster, target.key, force=force, progress=progress) as sess:
        outcome = sess.recover_pending(target.key)
        removed = remove_stale_scratch(cluster, sess.store)
        target = resolve_target(cluster, name, allow_hidden=True)
        state = read_state(cluster, target.index)
        result = ChangeResult(target.key, "recover", False, "", warnings=list(sess.warnings),
                              run_id=sess.run_id)
        if outcome is not None:
            sess.warnings.clear()
            result.changed = True
            result.recovered = [outcome.describe()]
            result.strategy = outcome.journal.strategy
            result.message = f"{target.key}: {outcome.describe()}"
        if removed:
            result.changed = True
            result.warnings.append(f"removed scratch indices of runs that are gone: "
                                   f"{', '.join(removed)}")
        if state.status != "open":
            result.message = result.message or (
                f"{target.key}: no interrupted qidf operation; the index is closed, and qidf "
                f"leaves it so (POST {state.index}/_open if it should be open)")
        else:
            repaired = _repair_record(cluster, state)
            state = read_state(cluster, target.index)
            repaired = "; ".join(r for r in (repaired, _repair_stats(cluster, state,
                                                                     target.key)) if r)
            if repaired:
                result.changed = True
                result.recovered.append(repaired)
                result.message = (result.message + "; " if result.message else
                                  f"{target.key}: ") + repaired
        state = read_state(cluster, target.index)
        result.after = state.installed.describe()
        result.message = result.message or (f"{target.key}: nothing to recover (open, "
                                            f"{result.after})")
        result.seconds = time.monotonic() - started
        return result
