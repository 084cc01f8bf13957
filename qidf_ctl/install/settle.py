"""Finishing or rolling back an interrupted change, from its journal and what the cluster
shows now.

The rule: whichever end is nearer and safe. Close strategy (and reopen, which is a close
inside one engine call): if the new settings are in place the change is finished (open,
write the record), else it is rolled back (open with the old settings); an index that will
not open with the new settings gets the old ones back. Clone strategy: if the swap happened
the change is finished (record, old index deleted), else it is rolled back (the clone
deleted, the write block lifted). The default search pipeline follows the similarity to the
same end (``pipeline.settle``), and so does the statistics snapshot (``snapshot.settle``).
Every action looks before it acts, so recovery itself can be interrupted and run again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.install import clone_swap, index_ops, pipeline, snapshot
from qidf_ctl.install import journal as jr
from qidf_ctl.install.close_swap import current_similarity, update_similarity
from qidf_ctl.install.index_ops import Wait
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.record import ensure_meta
from qidf_ctl.install.store import StateStore
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import same_settings

FINISHED = "finished"
ROLLED_BACK = "rolled back"
GONE = "gone"
UNKNOWN = "left as found"
RETRY_S = 1.0  # before a refused open is tried again


@dataclass
class Outcome:
    """What recovery did with an interrupted operation."""

    kind: str  # FINISHED, ROLLED_BACK, GONE or UNKNOWN
    journal: Journal
    detail: str = ""

    def describe(self) -> str:
        j = self.journal
        what = {
            FINISHED: f"the interrupted {j.operation} of {j.key} was finished",
            ROLLED_BACK: f"the interrupted {j.operation} of {j.key} was rolled back",
            GONE: f"the index of the interrupted {j.operation} of {j.key} no longer exists",
            UNKNOWN: f"the interrupted {j.operation} of {j.key} was closed out",
        }[self.kind]
        return what + (f" ({self.detail})" if self.detail else "")

    def after_failure(self) -> str:
        """The same, said about the command's own change that just failed."""
        key = self.journal.key
        if self.kind == ROLLED_BACK:
            return (f"{key} is open again with its previous settings (rolled back"
                    + (f": {self.detail})" if self.detail else ")"))
        if self.kind == FINISHED:
            return f"{key} has the new settings: the change was completed anyway"
        return self.describe()


def _statistics(cluster: Cluster, j: Journal, index: str, end: str, progress: Progress) -> None:
    """The default search pipeline and the statistics snapshot, to the similarity's end."""
    pipeline.settle(cluster, j, index, end, progress)
    snapshot.settle(cluster, j, end, progress)


def _ensure_open(cluster: Cluster, index: str, wait: Wait, tries: int = 2,
                 always: bool = False) -> None:
    """Open ``index`` unless it is open and searchable; a refused open is tried again once
    (a node restarting refuses briefly). ``always``: send ``_open`` even to an open index,
    because a close that failed half-way leaves an open index with a "preparing to close"
    write block that only ``_open`` removes."""
    for attempt in range(tries):
        if not always and index_ops.index_status(cluster, index) == "open" and \
                index_ops.searchable(cluster, index):
            return
        try:
            index_ops.open_index(cluster, index, wait)
            return
        except ClusterError as exc:
            if attempt == tries - 1 or exc.error_type == "connection_error":
                raise
            time.sleep(RETRY_S)


def _settle_close(cluster: Cluster, j: Journal, wait: Wait, progress: Progress) -> Outcome:
    settings = index_ops.flat_settings(cluster, j.index)
    if settings is None or settings.get("index.uuid") != j.index_uuid:
        return Outcome(GONE, j)
    now = current_similarity(cluster, j.index) or {}
    if same_settings(now, j.new):
        try:
            progress(f"finishing: opening {j.index} with the new similarity")
            _ensure_open(cluster, j.index, wait, always=True)
        except ClusterError:
            if not index_ops.reachable(cluster):
                raise
            progress(f"{j.index} does not open with the new similarity: restoring the old")
            index_ops.close_index(cluster, j.index, wait)
            update_similarity(cluster, j.index, j.old)
            _ensure_open(cluster, j.index, wait)
            _statistics(cluster, j, j.index, "old", progress)
            return Outcome(ROLLED_BACK, j, "it would not open with the new similarity; the "
                           "previous settings are back")
        _statistics(cluster, j, j.index, "new", progress)
        ensure_meta(cluster, j.index, j.new_meta)
        return Outcome(FINISHED, j)
    if same_settings(now, j.old):
        progress(f"rolling back: {j.index} keeps its previous similarity")
        _ensure_open(cluster, j.index, wait, always=True)
        _statistics(cluster, j, j.index, "old", progress)
        return Outcome(ROLLED_BACK, j)
    _ensure_open(cluster, j.index, wait, always=True)
    _statistics(cluster, j, j.index, "old", progress)
    return Outcome(UNKNOWN, j, "its similarity settings are neither the old nor the new ones, "
                   "so someone else changed them: left as they are; check `qidf show`")


def _settle_clone(cluster: Cluster, j: Journal, wait: Wait, progress: Progress) -> Outcome:
    if clone_swap.swapped(cluster, j):
        assert j.target is not None
        progress(f"finishing: {j.key} already serves {j.target}")
        _ensure_open(cluster, j.target, wait)
        target_settings = index_ops.flat_settings(cluster, j.target) or {}
        if str(target_settings.get("index.blocks.write", "false")).lower() == "true":
            index_ops.unblock_writes(cluster, j.target)
        pipeline.settle(cluster, j, j.target, "new", progress)
        ensure_meta(cluster, j.target, j.new_meta)
        if not j.replace_name:
            clone_swap.retire(cluster, j.index, j.index_uuid, progress)
        snapshot.settle(cluster, j, "new", progress)  # after the source is gone
        return Outcome(FINISHED, j, f"{j.key} now serves {j.target}")
    source = index_ops.flat_settings(cluster, j.index)
    if j.target:
        target = index_ops.flat_settings(cluster, j.target)
        if target is not None and clone_swap.made_by(target, j):
            progress(f"rolling back: deleting the unfinished clone {j.target}")
            index_ops.delete_index(cluster, j.target)
    if source is None or source.get("index.uuid") != j.index_uuid:
        return Outcome(GONE, j)
    _ensure_open(cluster, j.index, wait)
    if str(source.get("index.blocks.write", "false")).lower() == "true":
        progress(f"rolling back: lifting the write block of {j.index}")
        index_ops.unblock_writes(cluster, j.index)
    _statistics(cluster, j, j.index, "old", progress)
    return Outcome(ROLLED_BACK, j)


def settle(cluster: Cluster, store: StateStore, journal: Journal, wait: Wait,
           progress: Progress = quiet) -> Outcome:
    """Finish or roll back ``journal``'s operation, then close the journal."""
    if journal.strategy == "clone" and journal.target:  # (a record-only change has none)
        outcome = _settle_clone(cluster, journal, wait, progress)
    else:
        outcome = _settle_close(cluster, journal, wait, progress)
    jr.finish(store, journal)
    return outcome
