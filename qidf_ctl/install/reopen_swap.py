"""The reopen strategy (Elasticsearch 8.12+): ``PUT <index>/_settings?reopen=true``, in which
the engine closes the index, applies the static settings and reopens it; the wait for its
primaries; then the record.

One call instead of close, update, open: the engine refuses a bad value before it closes
anything (400, the index stays open), and the index is closed only inside the call, so no
client round trip sits in the outage. Searches and writes still fail while it is closed, and
a reopened index recovers its shards like any opened one, so the step waits until every
primary is active. Recovery is the close strategy's (``settle``): it decides from the
settings it observes, and opens the index whatever the call left.
"""

from __future__ import annotations

from collections.abc import Callable

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.install import index_ops, pipeline, snapshot
from qidf_ctl.install.close_swap import current_similarity, record_step
from qidf_ctl.install.index_ops import Wait
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.result import WindowTimer
from qidf_ctl.progress import Progress
from qidf_ctl.similarity import same_settings, update_body

STEPS = ("reopened", "searchable", "recorded")
Step = tuple[str, Callable[[], None], bool]  # name, action, journaled right after it


def reopen_with(cluster: Cluster, index: str, target: dict[str, object], wait: Wait) -> None:
    """One ``_settings?reopen=true`` call from whatever is there now to ``target``; returns
    once the engine has reopened the index (its primaries may still be starting)."""
    now = current_similarity(cluster, index) or {}
    if same_settings(now, target):
        return
    index_ops.slow_call(
        cluster, "PUT", index_path(index, "_settings"), update_body(now, target),
        f"updating {index} with reopen=true",
        lambda: same_settings(current_similarity(cluster, index) or {}, target)
        and index_ops.index_status(cluster, index) == "open", wait,
        lambda r: bool(r.get("acknowledged")),
        index_ops.server_params(cluster, reopen="true"))


def steps(cluster: Cluster, journal: Journal, wait: Wait, progress: Progress,
          timer: WindowTimer) -> list[Step]:
    index = journal.index

    def reopen() -> None:
        progress(f"updating {index} with reopen=true (the engine closes and reopens it)")
        timer.start()
        reopen_with(cluster, index, journal.new, wait)

    def recovered() -> None:
        progress(f"waiting for the primaries of {index}")
        index_ops.wait_searchable(cluster, index, wait)
        timer.stop()

    record = record_step(cluster, journal, index, progress)
    stats = pipeline.steps(cluster, journal, index, progress)
    taken = snapshot.stage_steps(cluster, journal, progress)
    dropped = snapshot.steps(cluster, journal, progress)
    if same_settings(journal.old, journal.new):
        return [*taken, *stats, record, *dropped]
    # The engine answers once the index is reopened; its primaries are still starting then
    # ("searchable" measures that recovery apart, and is journaled once searches work).
    return [*pipeline.stage_steps(cluster, journal, progress), *taken,
            ("reopened", reopen, False), ("searchable", recovered, True), *stats, record,
            *dropped]
