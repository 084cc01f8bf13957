"""The statistics-snapshot part of an apply or revert (``--stats snapshot``), journaled with
the similarity like the default search pipeline is.

The snapshot is named by the similarity (``index.similarity.default.stats_snapshot``, a
static setting that changes with the similarity: one close or clone, the first time), and
its key is the name clients use (the lease key), so a clone swap or a refresh keeps it.
Ordering, so that whatever stops a run leaves searches scoring consistently and nothing
behind:

- taking: the snapshot is taken (``staged``, before the close or the clone) while nothing
  names it yet; every data node loads it before the similarity names it, so the index opens
  with its index-wide statistics in place. A refusal stops the change before the index is
  touched.
- dropping: a snapshot the index no longer names is deleted after the similarity change
  (after the clone's source is gone), and only when no index names it: a ``_clone`` made by
  the user copies the setting, and its snapshot must outlive the index qidf changes.
- recovery (``settle``): the end the similarity reached decides. New end: a dropped snapshot
  is deleted if unused. Old end: a snapshot this run took and that did not exist before is
  deleted if unused; one that existed (a refresh) stays, taken again or not.

The plugin's take is itself ordered (a mark, chunks, a conditional publish), so a run killed
while the engine takes it leaves no half snapshot, and a delete that races it wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.stats import snapshot as api

TAKEN = "snapshot-taken"  # step names: fault points (``faults``)
DROPPED = "snapshot-dropped"


@dataclass(frozen=True)
class SnapshotPart:
    """What one change does to statistics snapshots."""

    take: str | None = None  # the key the new end names: taken before the similarity changes
    drop: str | None = None  # a key the old end names and the new one does not
    existed: bool = False  # ``take`` had a published generation when the change was planned
    index: str = ""  # the index read for ``take`` (the one serving the name now)
    fields: list[str] = field(default_factory=list)
    owner: str = ""

    @property
    def changes(self) -> bool:
        return self.take is not None or self.drop is not None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SnapshotPart | None:
        if not data:
            return None
        return cls(data.get("take"), data.get("drop"), bool(data.get("existed")),
                   str(data.get("index") or ""), list(data.get("fields") or []),
                   str(data.get("owner") or ""))


def scored_fields(state: SimilarityState) -> list[str]:
    """The text fields the default similarity scores: every text field that names no
    similarity of its own (those keep theirs, so their statistics are of no use)."""
    own = state.own_similarity_fields
    return sorted(f for f in state.text_fields if f not in own)


def plan(cluster: Cluster, state: SimilarityState, key: str, wanted: bool) -> SnapshotPart | None:
    """The part that gives ``state``'s index a snapshot named ``key`` (``wanted``) or none."""
    current = api.key_of(state.description.settings)
    if wanted:
        existed = api.generation(api.info(cluster, key)) > 0
        return SnapshotPart(take=key, drop=current if current not in (None, key) else None,
                            existed=existed, index=state.index, fields=scored_fields(state),
                            owner=key)
    if current is None:
        return None
    return SnapshotPart(drop=current)


def with_key(similarity: dict[str, Any], key: str | None) -> dict[str, Any]:
    """Flat similarity settings naming snapshot ``key`` (None: naming none)."""
    out = {k: v for k, v in similarity.items() if k != api.SETTING}
    if key is not None:
        out[api.SETTING] = key
    return out


def take(cluster: Cluster, part: SnapshotPart, progress: Progress = quiet) -> dict[str, Any]:
    assert part.take is not None
    progress(f"taking the statistics snapshot {part.take} of {part.index} (every data node "
             "loads it)")
    return api.take(cluster, part.take, part.index, part.fields, part.owner)


def drop_if_unused(cluster: Cluster, key: str, progress: Progress = quiet) -> bool:
    """Delete snapshot ``key`` when no index names it any more; True when it was deleted."""
    users = api.named_by(cluster, key)
    if users:
        progress(f"keeping the statistics snapshot {key}: {', '.join(users)} still use it")
        return False
    if api.info(cluster, key) is None:
        return False
    progress(f"deleting the statistics snapshot {key} (no index names it)")
    return api.delete(cluster, key)


Step = tuple[str, Callable[[], None], bool]


def stage_steps(cluster: Cluster, journal: Journal, progress: Progress) -> list[Step]:
    """The take, before the close or the clone (nothing names the snapshot yet, or it names
    its previous generation: a refresh)."""
    part = SnapshotPart.from_dict(journal.snapshot)
    if part is None or part.take is None:
        return []

    def run() -> None:
        take(cluster, part, progress)

    return [(TAKEN, run, True)]


def steps(cluster: Cluster, journal: Journal, progress: Progress) -> list[Step]:
    """The drop, once nothing of this change names the old snapshot (after the similarity
    change and, for a clone, after the source is gone)."""
    part = SnapshotPart.from_dict(journal.snapshot)
    if part is None or part.drop is None:
        return []
    key = part.drop

    def run() -> None:
        drop_if_unused(cluster, key, progress)

    return [(DROPPED, run, True)]


def settle(cluster: Cluster, journal: Journal, end: str, progress: Progress = quiet) -> None:
    """Recovery: bring the snapshot part to the end (``old`` or ``new``) the similarity
    reached."""
    part = SnapshotPart.from_dict(journal.snapshot)
    if part is None:
        return
    if end == "new":
        if part.take is not None and api.generation(api.info(cluster, part.take)) == 0:
            take(cluster, part, progress)
        if part.drop is not None:
            drop_if_unused(cluster, part.drop, progress)
        return
    if part.take is not None and not part.existed:
        drop_if_unused(cluster, part.take, progress)


def describe(part: SnapshotPart | None) -> str:
    if part is None or part.take is None:
        return ""
    return f"statistics snapshot {part.take}"


def inspect(cluster: Cluster, state: SimilarityState, key: str) -> dict[str, Any] | None:
    """What ``show`` says about the index's statistics snapshot (None: its similarity names
    none): generation, when, how stale (documents added and writes since), which nodes hold
    it, and a ``problem`` line when searches cannot use it."""
    current = api.key_of(state.description.settings)
    if current is None:
        return None
    out: dict[str, Any] = {"key": current, "problem": None}
    try:
        found = api.info(cluster, current)
    except ClusterError as exc:
        if exc.status in (401, 403):
            out["problem"] = ("this user may not read statistics snapshots (the qidf_stats role "
                              "in docs/how-to/privileges.md)")
            return out
        if exc.status in (400, 404, 405):
            out["problem"] = (f"the similarity names the statistics snapshot {current}, but this "
                              "cluster's qidf plugin has no statistics snapshots: searches use "
                              "per-shard statistics until the current plugin is on every node")
            return out
        raise
    if api.generation(found) == 0:
        out["problem"] = (f"the similarity names the statistics snapshot {current}, which does "
                          f"not exist, so searches use per-shard statistics: `qidf snapshot "
                          f"refresh {key}` takes it")
        return out
    assert found is not None
    for name in ("generation", "taken_at", "owner", "index", "terms", "heap_bytes", "bytes",
                 "min_doc_freq", "took_ms"):
        out[name] = found.get(name)
    held, total, behind = api.nodes_holding(found)
    out["nodes_holding"], out["data_nodes"] = held, total
    stale = api.staleness(cluster, state.index, found)
    out["staleness"] = stale.as_dict()
    out["stale"] = stale.describe()
    if behind:
        out["problem"] = (f"data node(s) {', '.join(behind)} do not hold generation "
                          f"{api.generation(found)} of the statistics snapshot {current} and "
                          f"score with older or per-shard statistics: `qidf snapshot refresh "
                          f"{key}` loads it everywhere")
    if current != key:
        out["shared"] = (f"the similarity names the snapshot {current} of another index (a "
                         f"clone copies the setting): `qidf apply {key} --stats snapshot` gives "
                         "this index its own")
    return out


def repair(cluster: Cluster, state: SimilarityState, key: str,
           found: dict[str, Any] | None) -> str | None:
    """``recover``: take the snapshot again when the similarity names this index's own and it
    is missing (deleted by hand, or the store index lost). None when nothing was needed."""
    current = api.key_of(state.description.settings)
    if current != key or found is None or not found.get("problem") or "generation" in found:
        return None
    if api.generation(api.info(cluster, key)) > 0:
        return None
    take(cluster, SnapshotPart(take=key, index=state.index, fields=scored_fields(state),
                               owner=key))
    return f"the statistics snapshot {key} the similarity names was missing: taken again"
