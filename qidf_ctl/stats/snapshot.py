"""Statistics snapshots: the plugin's index-wide df, N and average lengths, taken once and held
by every data node, so that the similarity scores plain searches as ``dfs_query_then_fetch``
would, without the dfs round trip.

This module talks to the plugin's REST API (``_plugins/qidf/stats_snapshot`` on OpenSearch,
``_qidf/stats_snapshot`` on Elasticsearch) and reads what a user needs to judge a snapshot:
its generation and time, how many documents were added and how many writes were made since
(cheap: one ``_stats`` call), and which nodes hold it. The similarity names its snapshot in
the static setting ``index.similarity.default.stats_snapshot``; the key stays the same across
refreshes, so a refresh needs no close.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, index_path, segment
from qidf_ctl.cluster.names import SNAPSHOT_INDEX
from qidf_ctl.errors import ClusterError

SETTING = "stats_snapshot"  # relative to index.similarity.<name>.
STORE_INDEX = SNAPSHOT_INDEX
MIN_DOC_FREQ = 2  # terms of one document are left out: the shard's own df is exact for them
# Share of documents added since the snapshot from which `show` says a refresh is due: the
# top-10 of 99.5% of queries still equal explicit dfs's below it (benchmarks/sharding/).
REFRESH_DUE_SHARE = 0.01


def base_path(cluster: Cluster) -> str:
    """The plugin's REST path on this engine."""
    if cluster.engine.distribution == "opensearch":
        return "/_plugins/qidf/stats_snapshot"
    return "/_qidf/stats_snapshot"


def key_path(cluster: Cluster, key: str, *rest: str) -> str:
    return "/".join([base_path(cluster), segment(key), *rest])


@dataclass(frozen=True)
class Support:
    """Whether every data node can hold snapshots; ``known`` False when the user may not ask."""

    available: bool
    reason: str
    known: bool = True
    forbidden: bool = False


def support(cluster: Cluster) -> Support:
    """One GET of the plugin's list: answered when the coordinating node has the actions, and
    the answer lists every data node that could not (a node without the plugin, or an older
    plugin, fails the fan-out)."""
    try:
        found = cluster.request("GET", base_path(cluster))
    except ClusterError as exc:
        if exc.status in (401, 403):
            return Support(False, "this user may not read statistics snapshots (the qidf_stats "
                           "role in docs/how-to/privileges.md)", known=False, forbidden=True)
        if exc.status in (400, 404, 405):
            return Support(False, "the qidf plugin with statistics snapshots is not installed "
                           "(install the current plugin on every node: qidf plugin install, "
                           "or the zip of `qidf plugin build`)")
        raise
    nodes = (found or {}).get("nodes") or {}
    failed = sorted((nodes.get("failed") or {}).keys())
    if failed:
        names = ", ".join(failed)
        return Support(False, f"statistics snapshots are missing on node(s) {names}: install "
                       "the current qidf plugin on every node")
    held = nodes.get("held") or {}
    if not held:
        return Support(False, "no data node answered for statistics snapshots")
    where = "the one data node" if len(held) == 1 else f"all {len(held)} data nodes"
    return Support(True, f"statistics snapshots on {where}")


def take(cluster: Cluster, key: str, index: str, fields: list[str], owner: str) -> dict[str, Any]:
    """Take (or refresh) the snapshot ``key`` of ``index`` and have every data node load it.

    The index is refreshed first, so that documents indexed but not yet searchable count, as
    they will for the searches the snapshot serves."""
    cluster.request("POST", index_path(index, "_refresh"))
    body = {"index": index, "fields": sorted(fields), "min_doc_freq": MIN_DOC_FREQ,
            "owner": owner}
    return dict(cluster.request("PUT", key_path(cluster, key), body))


def info(cluster: Cluster, key: str) -> dict[str, Any] | None:
    """The stored description of ``key`` with what each data node holds; None if there is none."""
    try:
        return dict(cluster.request("GET", key_path(cluster, key)))
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise


def delete(cluster: Cluster, key: str) -> bool:
    """Delete ``key`` from the store and every node; False when there was nothing."""
    found = cluster.request("DELETE", key_path(cluster, key))
    return bool((found or {}).get("deleted"))


def load(cluster: Cluster, key: str) -> dict[str, Any]:
    """Have every data node load the stored generation of ``key`` (a node that missed it)."""
    return dict(cluster.request("POST", key_path(cluster, key, "_load")))


def generation(found: dict[str, Any] | None) -> int:
    """The published generation of a description (0: none, e.g. only an unfinished first take)."""
    return int((found or {}).get("generation") or 0)


UNKNOWN_USER = "(indices this user may not read)"


def named_by(cluster: Cluster, key: str) -> list[str]:
    """Every index (open or closed) whose similarity settings name ``key``: a ``_clone`` copies
    the setting, so an index qidf never changed can use another's snapshot. A user who may not
    read every index's settings gets ``UNKNOWN_USER`` among them: such a snapshot is kept."""
    try:
        found = cluster.request(
            "GET", f"/_all/_settings/index.similarity.*.{SETTING}",
            params={"flat_settings": "true", "expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            return []
        if exc.status in (401, 403):
            return [UNKNOWN_USER]
        raise
    return sorted(index for index, body in (found or {}).items()
                  if key in (body.get("settings") or {}).values())


def key_of(flat_settings: dict[str, Any]) -> str | None:
    """The snapshot the index's default similarity names, from its flat settings."""
    value = flat_settings.get(f"index.similarity.default.{SETTING}")
    return None if value in (None, "") else str(value)


def nodes_holding(found: dict[str, Any]) -> tuple[int, int, list[str]]:
    """(nodes holding the published generation, data nodes, names of those that do not)."""
    nodes = found.get("nodes") or {}
    want = generation(found)
    held = nodes.get("held") or {}
    behind = [str(n.get("name") or node_id) for node_id, n in sorted(held.items())
              if int((n.get("state") or {}).get("generation") or 0) != want]
    behind += sorted(str(n) for n in (nodes.get("failed") or {}))
    total = int(nodes.get("total") or len(held))
    return total - len(behind), total, behind


@dataclass(frozen=True)
class Staleness:
    """How far an index has moved since its snapshot was taken."""

    docs_at_snapshot: int
    docs_now: int
    writes_since: int | None  # index, update and delete operations (sequence numbers)
    age_seconds: float

    @property
    def added(self) -> int:
        return self.docs_now - self.docs_at_snapshot

    @property
    def added_share(self) -> float:
        return self.added / self.docs_at_snapshot if self.docs_at_snapshot else 0.0

    @property
    def refresh_due(self) -> bool:
        return abs(self.added_share) >= REFRESH_DUE_SHARE or (
            self.writes_since is not None and self.docs_at_snapshot > 0
            and self.writes_since / self.docs_at_snapshot >= REFRESH_DUE_SHARE)

    def as_dict(self) -> dict[str, Any]:
        return {"docs_at_snapshot": self.docs_at_snapshot, "docs_now": self.docs_now,
                "added": self.added, "added_share": round(self.added_share, 6),
                "writes_since": self.writes_since, "age_seconds": round(self.age_seconds, 1),
                "refresh_due": self.refresh_due}

    def describe(self) -> str:
        share = f"{self.added_share:+.1%}"
        writes = "" if self.writes_since is None else f", {self.writes_since:,} writes"
        return (f"{self.added:+,} documents ({share}){writes} since it was taken "
                f"{_age(self.age_seconds)} ago")


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def staleness(cluster: Cluster, index: str, found: dict[str, Any]) -> Staleness:
    """Documents and writes of ``index`` now against the snapshot's (one ``_stats`` call: the
    primaries' document count and the sum of their highest sequence numbers)."""
    stats = cluster.request("GET", index_path(index, "_stats", "docs"),
                            params={"level": "shards"})
    entry = (stats.get("indices") or {}).get(index) or {}
    docs_now = int(((entry.get("primaries") or {}).get("docs") or {}).get("count") or 0)
    writes: int | None = None
    shards = entry.get("shards") or {}
    if shards and found.get("index_uuid") == _uuid(cluster, index):
        seq = 0
        for copies in shards.values():
            primary = next((c for c in copies if (c.get("routing") or {}).get("primary")), None)
            max_seq = ((primary or {}).get("seq_no") or {}).get("max_seq_no")
            if max_seq is None:
                seq = -1
                break
            seq += int(max_seq)
        if seq >= 0:
            writes = max(0, seq - int(found.get("max_seq_no") or 0))
    taken = float(found.get("taken_at") or 0) / 1000
    return Staleness(int(found.get("docs") or 0), docs_now, writes,
                     max(0.0, time.time() - taken) if taken else 0.0)


def _uuid(cluster: Cluster, index: str) -> str:
    """The index's uuid (sequence numbers compare only within one index: a clone starts anew)."""
    found = cluster.request("GET", index_path(index, "_settings", "index.uuid"),
                            params={"expand_wildcards": "all"})
    return str(((found.get(index) or {}).get("settings") or {}).get("index", {}).get("uuid", ""))
