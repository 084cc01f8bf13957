"""What query-time q-log needs to know of an index before its first query: the text field, the
number of shards, and that the field really scores with built-in BM25.

A user who holds only search and read privileges cannot read settings or mappings. Then the
field comes from ``_field_caps`` and the shard count from a search's own ``_shards``, both
read privileges, and the similarity cannot be checked: it is assumed to be built-in BM25,
and the result says so. Where settings can be read, an index whose similarity is already
q-log (or any non-BM25 similarity) is refused: the boosts would apply q-log on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from qidf_ctl.cluster import Cluster, describe_index, index_path
from qidf_ctl.cluster.index import TEXT_TYPES, FieldInfo, IndexDescription
from qidf_ctl.errors import ClusterError, ConflictError
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.querytime.statistics import shard_count

BM25_NAMES = ("BM25", "default")  # a field naming either scores with built-in BM25 here
ASSUMED = "built-in BM25 assumed (the index settings are not readable with these privileges)"


@dataclass(frozen=True)
class Target:
    """The index (as the user named it), its text field, its shards, and what is known of
    its similarity."""

    index: str
    field: str
    shards: int
    similarity: str
    checked: bool  # False when the settings could not be read


def _denied(exc: ClusterError) -> bool:
    return exc.status == 403


def inspect(cluster: Cluster, index: str, field: str | None = None) -> Target:
    """Read what query time needs; read privileges are enough (see the module docstring)."""
    try:
        description = describe_index(cluster, index)
    except ClusterError as exc:
        if not _denied(exc):
            raise
        return Target(index, _field_from_caps(cluster, index, field), shard_count(cluster, index),
                      ASSUMED, False)
    return target_of(description, index, field)


def target_of(description: IndexDescription, index: str, field: str | None = None) -> Target:
    """The target of an index already described (``index`` as the user named it): refused
    unless the field scores with built-in BM25."""
    description.require_open("search it")
    fname = description.text_field(field)
    installed = SimilarityState(description).installed
    if installed.kind != "builtin":
        raise ConflictError(
            f"index {description.index!r} already scores with {installed.describe()}: "
            "query-time boosts would apply q-log on top of it. Search it with a plain query, "
            f"or `qidf revert {description.index}` first")
    own = description.fields[fname].similarity
    if own and own not in BM25_NAMES:
        raise ConflictError(
            f"field {fname!r} of {description.index!r} names its own similarity {own!r}; "
            "query-time q-log needs a field scored by built-in BM25")
    return Target(index, fname, description.shards, installed.describe(), True)


def _field_from_caps(cluster: Cluster, index: str, field: str | None) -> str:
    """The text field from ``_field_caps`` (read privilege), chosen by ``describe_index``'s own
    rule and messages: the one named, else the only text field."""
    caps = cluster.request("GET", index_path(index, "_field_caps"), params={"fields": "*"})
    if not caps.get("indices", [index]):  # the security plugin drops a refused index silently
        raise ClusterError(
            f"the field capabilities of {index!r} came back empty: these credentials may "
            "search but not read its fields; grant indices:data/read/field_caps and "
            "indices:data/read/field_caps[index] (role qidf_query_time, docs/how-to/privileges.md)",
            status=403)
    fields = {}
    for name, kinds in sorted(caps.get("fields", {}).items()):
        kind = next((k for k in kinds if k in TEXT_TYPES), next(iter(kinds), "object"))
        fields[name] = FieldInfo(name, kind, name)
    return IndexDescription(index, index, "open", {}, fields=fields).text_field(field)
