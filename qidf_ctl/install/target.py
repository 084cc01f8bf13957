"""Which one index a change will touch, and refusals that change nothing.

Before any write: the name is checked (``cluster.names``) before any request; then one
``_resolve/index`` call says whether it is an index, an alias (to exactly one index) or a
data stream, and whether the index is hidden or a system index. Data streams, qidf's own
indices, and hidden indices without ``--allow-hidden`` are refused here; blocks and a cluster
that forbids closing (``cluster.capabilities.check_closable``) are refused once the
index's settings are read (``check_writable``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster, check_name, segment
from qidf_ctl.cluster.names import clone_public_name, is_hidden_name, is_qidf_owned
from qidf_ctl.errors import ClusterError, ConflictError, NotFoundError, UsageError
from qidf_ctl.install import index_ops
from qidf_ctl.install.strategy import Strategy

BLOCKS = ("index.blocks.write", "index.blocks.read_only", "index.blocks.read_only_allow_delete",
          "index.blocks.metadata", "index.blocks.read")


@dataclass
class Target:
    """The index a command changes, as resolved from the name given."""

    name: str  # as given
    index: str  # the concrete index
    key: str  # the lease and journal key: the public name (a clone's alias) or the index
    aliases: dict[str, dict[str, Any]] = field(default_factory=dict)
    hidden: bool = False
    backing_of: str | None = None  # the data stream whose backing index this is


def _resolve(cluster: Cluster, name: str) -> dict[str, Any]:
    try:
        resp = cluster.request("GET", f"/_resolve/index/{segment(name)}",
                               params={"expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            resp = {}
        else:
            raise
    return resp if isinstance(resp, dict) else {}


def _not_found(name: str) -> NotFoundError:
    return NotFoundError(f"index {name!r} not found: check the name with GET _cat/indices")


def _data_stream_error(name: str) -> ConflictError:
    return ConflictError(
        f"{name!r} is a data stream: qidf changes one index and writes nothing here. Set the "
        "similarity in the data stream's index template (new backing indices get it: see "
        "`qidf render` and the GitOps desired-state file) or apply to one of its backing "
        "indices (GET _data_stream/NAME lists them; they are hidden: add --allow-hidden)")


def _concrete(cluster: Cluster, name: str) -> tuple[str, dict[str, Any]]:
    """The one concrete index behind ``name`` and its ``_resolve`` entry."""
    resolved = _resolve(cluster, name)
    if any(ds.get("name") == name for ds in resolved.get("data_streams", [])):
        raise _data_stream_error(name)
    for alias in resolved.get("aliases", []):
        if alias.get("name") != name:
            continue
        indices = sorted(alias.get("indices", []))
        if len(indices) != 1:
            raise UsageError(f"{name!r} is an alias of {len(indices)} indices "
                             f"({', '.join(indices) or 'none'}): name one index")
        index = indices[0]
        entry = next((i for i in _resolve(cluster, index).get("indices", [])
                      if i.get("name") == index), None)
        if entry is None:  # an alias of a data stream
            raise _data_stream_error(name)
        return index, entry
    for entry in resolved.get("indices", []):
        if entry.get("name") == name:
            return name, entry
    raise _not_found(name)


def resolve_target(cluster: Cluster, name: str, *, allow_hidden: bool = False,
                   strategy: Strategy | None = None) -> Target:
    """Resolve ``name`` to the one index a change may touch, or refuse (nothing written)."""
    check_name(name, "index or alias")
    if is_qidf_owned(name):
        raise UsageError(f"{name!r} is qidf's own index (leases, journals, scratch, statistics "
                         "snapshots): qidf never changes its similarity")
    index, entry = _concrete(cluster, name)
    if is_qidf_owned(index):
        raise UsageError(f"{name!r} points at qidf's own index {index!r}: qidf never changes "
                         "its similarity")
    attributes = set(entry.get("attributes", []))
    hidden = bool({"hidden", "system"} & attributes) or is_hidden_name(index)
    backing = entry.get("data_stream")
    if hidden and not allow_hidden:
        kind = "a system index" if "system" in attributes else "a hidden index"
        raise UsageError(f"{index!r} is {kind}: qidf changes it only with --allow-hidden "
                         "(make sure no product relies on its scoring)")
    if backing and strategy == Strategy.CLONE:
        raise ConflictError(f"{index!r} is a backing index of the data stream {backing!r}, "
                            "which a clone cannot replace: use --strategy close (not on the "
                            "stream's write index) or change the stream's template")
    aliases = index_ops.aliases_of(cluster, index)
    key = clone_public_name(index, list(aliases)) or index
    return Target(name, index, key, aliases, hidden, backing)


def check_writable(index: str, settings: dict[str, Any]) -> None:
    """Refuse, before anything changes, an index whose blocks would stop the change."""
    blocked = [k for k in BLOCKS if str(settings.get(k, "false")).lower() == "true"]
    if blocked:
        shown = ", ".join(f"{k}=true" for k in blocked)
        body = ", ".join(f'"{k}": null' for k in blocked)
        raise ConflictError(
            f"index {index!r} has {shown}: qidf changes nothing on a blocked index. If the "
            f"block is not needed any more, remove it (PUT {index}/_settings {{{body}}}) and "
            "run the command again")


def check_write_index_of_stream(cluster: Cluster, target: Target) -> None:
    """The write index of a data stream cannot be closed: refuse before the close does."""
    if not target.backing_of:
        return
    try:
        resp = cluster.request("GET", f"/_data_stream/{segment(target.backing_of)}")
    except ClusterError as exc:
        if exc.status in (400, 403, 404, 405):  # no data stream API (ES zip) or privilege
            return
        raise
    streams = resp.get("data_streams", [])
    indices = streams[0].get("indices", []) if streams else []
    if indices and indices[-1].get("index_name") == target.index:
        raise ConflictError(
            f"{target.index!r} is the write index of the data stream {target.backing_of!r}, "
            "which cannot be closed: roll the stream over first (POST "
            f"{target.backing_of}/_rollover) or change the stream's template")
