"""``recover``: settle an interrupted operation explicitly, and repair a ``_meta.qidf`` record
that disagrees with the settings. apply and revert do the first themselves; ``recover`` is
for an index a person wants made consistent now, or whose stale lease needs ``--force``."""

from __future__ import annotations

import time

from qidf_ctl.cluster import Cluster
from qidf_ctl.install.operation import remove_stale_scratch, session
from qidf_ctl.install.record import disagreement, ensure_meta, read_meta, without_record
from qidf_ctl.install.result import ChangeResult
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
        ensure_meta(cluster, state.index, {**meta, META_KEY: {"previous": previous,
                                                              "installed": done}})
        return f"{why}: the record now describes the settings"
    if same_settings(state.similarity_flat, previous):
        ensure_meta(cluster, state.index, without_record(meta))
        return f"{why}: the settings are the recorded previous ones, so the record was removed"
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
