"""``qidf snapshot refresh``: take an index's statistics snapshot again, under its lease.

The similarity keeps naming the same key, so a refresh changes no setting and needs no
close: the plugin writes the new generation beside the old, publishes it with one
conditional write and has every data node load it. Searches score with the old generation
until their node has loaded the new one. Nothing on the index changes, so there is nothing
to journal: a run killed at any point leaves the old generation or the new one, never a mix
(the plugin's take is ordered so), and the next command finds nothing to settle.
"""

from __future__ import annotations

import time

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from qidf_ctl.install import faults
from qidf_ctl.install.operation import session
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.snapshot import SnapshotPart, scored_fields, take
from qidf_ctl.install.state import read_state
from qidf_ctl.install.target import resolve_target
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.stats import snapshot as api

STEP = "snapshot-refreshed"  # a fault point, right after the take


def refresh(cluster: Cluster, name: str, *, allow_hidden: bool = False,
            progress: Progress = quiet) -> ChangeResult:
    """Take the statistics snapshot the index's similarity names again."""
    started = time.monotonic()
    target = resolve_target(cluster, name, allow_hidden=allow_hidden)
    with session(cluster, target.key, progress=progress) as sess:
        sess.recover_pending(target.key)
        target = resolve_target(cluster, name, allow_hidden=allow_hidden)
        state = read_state(cluster, target.index)
        current = api.key_of(state.description.settings)
        if current is None:
            raise UsageError(f"{target.key}: its similarity names no statistics snapshot: "
                             f"`qidf apply {target.key} --mode plugin --stats snapshot` "
                             "takes one")
        if current != target.key:
            raise UsageError(f"{target.key}: its similarity names the statistics snapshot "
                             f"{current} of another index (a clone copies the setting): refresh "
                             f"that one with `qidf snapshot refresh {current}`, or give this "
                             f"index its own with `qidf apply {target.key} --stats snapshot`")
        state.description.require_open("refresh its statistics snapshot")
        sess.check_signal()
        before = api.generation(api.info(cluster, current))
        found = take(cluster, SnapshotPart(take=current, index=state.index,
                                           fields=scored_fields(state), owner=current),
                     progress)
        faults.at(STEP)
        held, total, behind = api.nodes_holding(found)
        result = ChangeResult(state.index, "refresh", True, "", run_id=sess.run_id,
                              stats="snapshot", stats_snapshot=current)
        result.snapshot = {k: v for k, v in found.items() if k not in ("token", "taking")}
        result.message = (f"{target.key}: statistics snapshot {current} generation "
                          f"{api.generation(found)} (was {before or 'none'}): "
                          f"{int(found.get('docs') or 0):,} documents, "
                          f"{int(found.get('terms') or 0):,} terms, "
                          f"{int(found.get('bytes') or 0) / 2**20:.1f} MiB, taken in "
                          f"{int(found.get('took_ms') or 0) / 1000:.1f} s; held by {held} of "
                          f"{total} data nodes")
        if behind:
            result.warnings.append(f"data node(s) {', '.join(behind)} did not load it: `qidf "
                                   f"snapshot refresh {target.key}` again once they answer")
        result.recovered = [o.describe() for o in sess.recovered]
        result.warnings = sess.warnings + result.warnings
        result.seconds = time.monotonic() - started
        return result
