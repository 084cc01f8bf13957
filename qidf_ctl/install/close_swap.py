"""The close strategy: close -> update ``index.similarity.default`` -> open -> record.

The engines change a similarity only on a closed index, so search and writes on it fail while
it is closed (a fraction of a second on one node). Each step is idempotent (it looks before it
acts), so recovery can replay or undo any of them; the ``_meta`` record comes last, once the
settings it describes are in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.install import index_ops, pipeline, snapshot
from qidf_ctl.install.index_ops import Wait
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.record import ensure_meta
from qidf_ctl.install.result import WindowTimer
from qidf_ctl.install.state import similarity_of
from qidf_ctl.progress import Progress
from qidf_ctl.similarity import same_settings, update_body

STEPS = ("closed", "updated", "opened", "recorded")
Step = tuple[str, Callable[[], None], bool]  # name, action, journaled right after it


def current_similarity(cluster: Cluster, index: str) -> dict[str, Any] | None:
    settings = index_ops.flat_settings(cluster, index)
    return None if settings is None else similarity_of(settings)


def update_similarity(cluster: Cluster, index: str, target: dict[str, Any]) -> None:
    """Settings update to ``target`` (on a closed index), from whatever is there now."""
    now = current_similarity(cluster, index) or {}
    if not same_settings(now, target):
        index_ops.put_settings(cluster, index, update_body(now, target))


def steps(cluster: Cluster, journal: Journal, wait: Wait, progress: Progress,
          timer: WindowTimer) -> list[Step]:
    """The steps from ``journal.old`` to ``journal.new``; only the record (and the default
    search pipeline, when it changes) when the similarity settings are already the new ones
    (a revert whose settings were restored by hand, or a change of ``--stats`` alone)."""
    index = journal.index

    def close() -> None:
        progress(f"closing {index}")
        timer.start()
        index_ops.close_index(cluster, index, wait)

    def update() -> None:
        progress("updating similarity settings")
        update_similarity(cluster, index, journal.new)

    def reopen() -> None:
        progress(f"reopening {index}")
        index_ops.open_index(cluster, index, wait)
        timer.stop()

    record = record_step(cluster, journal, index, progress)
    stats = pipeline.steps(cluster, journal, index, progress)
    taken = snapshot.stage_steps(cluster, journal, progress)
    dropped = snapshot.steps(cluster, journal, progress)
    if same_settings(journal.old, journal.new):
        return [*taken, *stats, record, *dropped]
    # The index is closed from "closed" to "opened": no journal write in between, to keep
    # the outage short (recovery decides from what it observes, not from the step). The
    # default search pipeline is a dynamic setting: it changes on the open index.
    return [*pipeline.stage_steps(cluster, journal, progress), *taken, ("closed", close, False),
            ("updated", update, False), ("opened", reopen, True), *stats, record, *dropped]


def record_step(cluster: Cluster, journal: Journal, index: str, progress: Progress) -> Step:
    """The last step of the close and reopen strategies: ``_meta.qidf`` once the settings it
    describes are in place."""

    def record() -> None:
        progress("recording what was installed")
        ensure_meta(cluster, index, journal.new_meta)

    return ("recorded", record, True)
