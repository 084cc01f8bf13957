"""The clone strategy: a similarity change with no search downtime.

write-block the index (``_block/write`` also drains writes in flight) -> ``_clone`` it (hard
links, no reindex) with the new similarity in the clone request -> wait until the clone is
searchable and holds as many documents -> move every name in one atomic ``_aliases`` call ->
write the record on the clone -> delete the old index.

When the old index is the one clients name (not an earlier qidf clone), the same ``_aliases``
call deletes it (``remove_index``) and adds an alias of the same name on the clone, so its
name keeps working; later swaps only move aliases, and the old clone is deleted after its
searches in flight have finished. Writes are refused (retryable ``cluster_block_exception``)
from the block to the swap: that window is measured and printed. Nothing acknowledged is
lost: the clone holds every write made before the block, and every later write goes to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError, ConflictError, QidfError
from qidf_ctl.install import index_ops, pipeline, snapshot
from qidf_ctl.install.close_swap import current_similarity, update_similarity
from qidf_ctl.install.index_ops import Wait
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.record import ensure_meta
from qidf_ctl.install.result import WindowTimer
from qidf_ctl.progress import Progress
from qidf_ctl.similarity import same_settings, update_body

STEPS = ("blocked", "cloned", "configured", "searchable", "swapped", "recorded", "retired")
Step = tuple[str, Callable[[], None], bool]  # name, action, journaled right after it
ALIAS_PROPERTIES = ("filter", "index_routing", "search_routing", "is_write_index", "is_hidden")
DRAIN_S = 30.0  # longest wait for searches still running on the old index before deleting it
GRACE_S = 0.5  # searches that resolved the old name just before the swap reach it within this
CLOCK_SKEW_S = 300.0  # between the machine that journaled and the cluster


def made_by(target: dict[str, Any], j: Journal) -> bool:
    """Whether ``target`` (its flat settings) is the clone this journal's run made: the
    clone's owner marker (``ownership``). OpenSearch keeps ``index.resize.source.uuid``;
    Elasticsearch drops it once the clone has recovered, so there the clone must have been
    created after the journal (its name carries the run id)."""
    source_uuid = target.get("index.resize.source.uuid")
    if source_uuid is not None:
        return bool(source_uuid == j.index_uuid)
    created_ms = float(target.get("index.creation_date", 0))
    return created_ms >= (j.started_at - CLOCK_SKEW_S) * 1000


def replica_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """``_clone`` does not copy ``number_of_replicas`` (it falls back to 1): keep the
    source's replica settings."""
    keep = {"index.number_of_replicas": settings.get("index.number_of_replicas", "1")}
    auto = settings.get("index.auto_expand_replicas")
    if auto not in (None, "false", False):
        keep["index.auto_expand_replicas"] = auto
    return keep


def clone_settings(journal: Journal) -> dict[str, Any]:
    """The settings the clone is created with: writable, the source's replicas, and the new
    similarity when it only adds or changes keys. A ``_clone`` request cannot remove a key the
    source has (a null there does not drop a nested key such as ``script.source``: "Unknown
    settings for similarity of type [BM25]"), nor the similarity altogether; then the clone
    keeps the old settings and ``configured`` changes them on the closed clone before the
    swap, which costs no search because the clone serves nothing yet."""
    settings: dict[str, Any] = {"index.blocks.write": None, **journal.replicas}
    if journal.new and set(journal.old) <= set(journal.new):
        settings.update(update_body(journal.old, journal.new))
    return settings


def swap_actions(journal: Journal) -> list[dict[str, Any]]:
    """The one ``_aliases`` call: every alias moves with its properties; a source that clients
    name directly is replaced by an alias of the same name."""
    assert journal.target is not None
    actions: list[dict[str, Any]] = []
    for alias, props in sorted(journal.aliases.items()):
        kept = {k: v for k, v in props.items() if k in ALIAS_PROPERTIES}
        if not journal.replace_name:
            # must_exist: a remove that matches nothing would otherwise pass silently and
            # leave the alias on two indices (OpenSearch), or report errors:true (ES 8).
            actions.append({"remove": {"index": journal.index, "alias": alias,
                                       "must_exist": True}})
        actions.append({"add": {"index": journal.target, "alias": alias, **kept}})
    if journal.replace_name:
        actions.append({"remove_index": {"index": journal.index}})
        actions.append({"add": {"index": journal.target, "alias": journal.index}})
    return actions


def swapped(cluster: Cluster, journal: Journal) -> bool:
    """Whether the public name already serves the clone (the swap is atomic: all or none)."""
    return journal.target is not None and \
        index_ops.resolves_to(cluster, journal.key) == [journal.target]


def searches_running(cluster: Cluster, index: str) -> int:
    try:
        stats = cluster.request("GET", index_path(index, "_stats", "search"))
    except ClusterError as exc:
        if exc.status in (403, 404):  # gone, or no monitor privilege: the grace period only
            return 0
        raise
    search = stats.get("_all", {}).get("total", {}).get("search", {})
    return sum(int(search.get(k, 0)) for k in ("query_current", "fetch_current",
                                               "scroll_current"))


def retire(cluster: Cluster, index: str, uuid: str, progress: Progress) -> None:
    """Delete the old index once nothing searches it any more (bounded wait); only the very
    index the journal names (same uuid), never one that took its name since."""
    settings = index_ops.flat_settings(cluster, index)
    if settings is None or settings.get("index.uuid") != uuid:
        return
    if index_ops.aliases_of(cluster, index):
        raise QidfError(f"{index} still has aliases after the swap: not deleting it")
    progress(f"waiting for searches on {index} to finish, then deleting it")
    time.sleep(GRACE_S)
    deadline = time.monotonic() + DRAIN_S
    while searches_running(cluster, index) and time.monotonic() < deadline:
        time.sleep(0.2)
    index_ops.delete_index(cluster, index)


def steps(cluster: Cluster, journal: Journal, wait: Wait, progress: Progress,
          timer: WindowTimer) -> list[Step]:
    source, target = journal.index, journal.target
    assert target is not None

    def block() -> None:
        progress(f"write-blocking {source}")
        timer.start()
        index_ops.block_writes(cluster, source, wait)

    def clone() -> None:
        existing = index_ops.flat_settings(cluster, target)
        if existing is not None:  # this run's clone (a step run again), or someone's index
            if not made_by(existing, journal):
                raise ConflictError(f"an index named {target!r} exists and is not the clone "
                                    f"of {source!r} this run made: qidf does not use it; "
                                    "run the command again (a new run picks another name)")
            return
        progress(f"cloning {source} into {target} with the new similarity")
        index_ops.clone_index(cluster, source, target, clone_settings(journal), wait)

    def configure() -> None:
        # The clone serves nothing yet, so closing it costs no search.
        if same_settings(current_similarity(cluster, target) or {}, journal.new):
            return
        progress(f"setting the similarity of {target} (not serving yet)")
        index_ops.wait_searchable(cluster, target, wait)
        index_ops.close_index(cluster, target, wait)
        update_similarity(cluster, target, journal.new)
        index_ops.open_index(cluster, target, wait)

    def check() -> None:
        progress(f"waiting for {target} to be searchable")
        index_ops.wait_searchable(cluster, target, wait)
        # The clone's first reader holds every document of the flushed source; the source
        # needs a refresh to count the writes made just before the block.
        have = index_ops.doc_count(cluster, target, refresh=False)
        want = index_ops.doc_count(cluster, source)
        if have != want:
            raise QidfError(f"the clone {target} holds {have} documents, {source} {want}")

    def record() -> None:
        ensure_meta(cluster, target, journal.new_meta)

    def swap() -> None:
        progress(f"moving {journal.key} to {target} (one atomic _aliases call)")
        index_ops.update_aliases(cluster, swap_actions(journal), wait,
                                 lambda: swapped(cluster, journal))
        timer.stop()

    def retire_source() -> None:
        if not journal.replace_name:
            retire(cluster, source, journal.index_uuid, progress)

    # Writes are refused from "blocked" to "swapped": no journal write in between (recovery
    # decides from what it observes, the journal only gives it the values), and the record
    # is written after the swap, as the close strategy writes it after the open.
    return [*pipeline.stage_steps(cluster, journal, progress),
            *snapshot.stage_steps(cluster, journal, progress),
            ("blocked", block, False), ("cloned", clone, False),
            ("configured", configure, False), ("searchable", check, False),
            ("swapped", swap, True), *pipeline.steps(cluster, journal, target, progress),
            ("recorded", record, True), ("retired", retire_source, True),
            *snapshot.steps(cluster, journal, progress)]
