"""What query-time q-log needs to know of an index before its first query: the text field, the
number of shards, and what the field scores with: built-in BM25, or a q-log similarity (the
index's default, or one its mapping names for the field).

A user who holds only search and read privileges cannot read settings or mappings. Then the
field comes from ``_field_caps`` and the shard count from a search's own ``_shards``, both
read privileges, and the similarity cannot be checked: it is assumed to be built-in BM25,
and the result says so. Where settings can be read, a field on q-log is refused unless the
caller rescales that q-log (``over_installed``: the boosts are then ``idf_q / idf_base``,
``boosts.py``); any other similarity is refused: boosts cannot turn it into q-log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index, index_path
from qidf_ctl.cluster.index import TEXT_TYPES, FieldInfo, IndexDescription
from qidf_ctl.errors import ClusterError, ConflictError
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.querytime.statistics import shard_count
from qidf_ctl.similarity import Installed, QlogParams, parse, unflatten

DEFAULT = "default"
ASSUMED = "built-in BM25 assumed (the index settings are not readable with these privileges)"


@dataclass(frozen=True)
class Target:
    """The index (as the user named it), its text field, its shards, and what is known of
    its similarity: ``base``, the q-log the field already scores with (None: BM25)."""

    index: str
    field: str
    shards: int
    similarity: str
    checked: bool  # False when the settings could not be read
    base: QlogParams | None = None

    @property
    def installed_q(self) -> float | None:
        """The q the field ranks with as it is: its q-log's, or 1 (BM25)."""
        return self.base.q if self.base is not None else 1.0


def named_similarity(description: IndexDescription, name: str) -> Installed:
    """The similarity ``index.similarity.<name>`` of an index's settings, recognised."""
    prefix = f"index.similarity.{name}."
    found: dict[str, Any] = {k[len(prefix):]: v for k, v in description.settings.items()
                             if k.startswith(prefix) and v is not None}
    return parse(unflatten(found) or None)


def field_similarity(description: IndexDescription, fname: str) -> tuple[Installed, str]:
    """What ``fname`` scores with, and its name: ``default`` (the index's default), or the
    similarity its mapping names (``BM25``, a built-in one, or one of the settings)."""
    own = description.fields[fname].similarity
    if not own or own == "default":
        return SimilarityState(description).installed, DEFAULT
    if own == "BM25":
        return Installed("builtin"), own
    if not any(k.startswith(f"index.similarity.{own}.") for k in description.settings):
        return Installed("other", raw={"type": own}), own  # a built-in one, e.g. boolean
    return named_similarity(description, own), own


def _denied(exc: ClusterError) -> bool:
    return exc.status == 403


def inspect(cluster: Cluster, index: str, field: str | None = None, *,
            over_installed: bool = False) -> Target:
    """Read what query time needs; read privileges are enough (see the module docstring)."""
    try:
        description = describe_index(cluster, index)
    except ClusterError as exc:
        if not _denied(exc):
            raise
        return Target(index, _field_from_caps(cluster, index, field), shard_count(cluster, index),
                      ASSUMED, False)
    return target_of(description, index, field, over_installed=over_installed)


def target_of(description: IndexDescription, index: str, field: str | None = None, *,
              over_installed: bool = False) -> Target:
    """The target of an index already described (``index`` as the user named it): refused
    unless the field scores with built-in BM25, or (``over_installed``) with q-log."""
    description.require_open("search it")
    fname = description.text_field(field)
    installed, where = field_similarity(description, fname)
    if installed.kind == "qlog" and installed.params is not None and over_installed:
        return Target(index, fname, description.shards, installed.describe(), True,
                      installed.params)
    if installed.kind == "qlog" and where == DEFAULT:
        raise ConflictError(
            f"index {description.index!r} already scores with {installed.describe()}: "
            "query-time boosts would apply q-log on top of it. Search it with a plain query, "
            f"or `qidf revert {description.index}` first")
    if installed.kind != "builtin":
        raise ConflictError(
            f"field {fname!r} of {description.index!r} names its own similarity {where!r} "
            f"({installed.describe()}); query-time q-log needs a field scored by built-in "
            "BM25" + (" or q-log" if over_installed else ""))
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
