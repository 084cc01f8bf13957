"""One reader of an index's description: status, settings, mapping ``_meta`` and fields.

Every command that names an index and a field goes through here, so that a field is chosen
the same way everywhere (the one asked for, else the only text field) and the same mistake
gets the same message and exit code whichever command made it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster.client import Cluster
from qidf_ctl.cluster.names import index_path
from qidf_ctl.errors import ClusterError, ConflictError, NotFoundError, UsageError

TEXT_TYPES = ("text", "match_only_text")


@dataclass(frozen=True)
class FieldInfo:
    """A mapped field: its dotted path, type, where its value sits in ``_source`` (a
    multi-field is analysed from its parent's value) and the similarity its mapping names."""

    path: str
    type: str
    source_path: str
    similarity: str | None = None

    @property
    def is_text(self) -> bool:
        return self.type in TEXT_TYPES


def walk_mapping(props: dict[str, Any], prefix: str = "",
                 source: str | None = None) -> Iterator[FieldInfo]:
    """Every field of a mapping's ``properties``, objects and multi-fields included."""
    for name, spec in props.items():
        path = f"{prefix}{name}"
        own_source = source or path
        sim = spec.get("similarity")
        yield FieldInfo(path, str(spec.get("type", "object")), own_source,
                        str(sim) if sim else None)
        if "properties" in spec:
            yield from walk_mapping(spec["properties"], path + ".")
        if "fields" in spec:
            yield from walk_mapping(spec["fields"], path + ".", own_source)


@dataclass
class IndexDescription:
    """What qidf reads of an index before doing anything with it."""

    name: str  # as the user gave it (an index or an alias)
    index: str  # the concrete index
    status: str  # "open" or "close"
    settings: dict[str, Any]  # flat
    meta: dict[str, Any] = field(default_factory=dict)  # the mapping's _meta ({} if closed)
    fields: dict[str, FieldInfo] = field(default_factory=dict)  # mapping order

    @property
    def text_fields(self) -> list[str]:
        return [p for p, f in self.fields.items() if f.is_text]

    @property
    def shards(self) -> int:
        return int(self.settings.get("index.number_of_shards", 1))

    def require_open(self, doing: str) -> None:
        if self.status != "open":
            raise ConflictError(
                f"index {self.index!r} is closed, so qidf cannot {doing}; nothing was done: "
                f"open it (POST {self.index}/_open) or run `qidf recover {self.index}` if a "
                "qidf run was interrupted")

    def _listed(self) -> str:
        return ", ".join(sorted(self.text_fields)) or "none"

    def check_text_field(self, name: str) -> str:
        """``name`` if it is an analysed text field of this index; else one clear error."""
        info = self.fields.get(name)
        if info is None:
            raise NotFoundError(f"field {name!r} is not in the mapping of {self.index!r} "
                                f"(text fields: {self._listed()})")
        if not info.is_text:
            raise UsageError(f"field {name!r} of {self.index!r} is a {info.type} field, not "
                             f"analysed text: pick a text field ({self._listed()})")
        return name

    def text_field(self, name: str | None) -> str:
        """The one field a query searches: the one given, or the index's only text field."""
        if name is not None:
            return self.check_text_field(name)
        text = self.text_fields
        if not text:
            raise NotFoundError(f"index {self.index!r} has no text field (qidf works on "
                                "analysed text fields)")
        if len(text) > 1:
            raise UsageError(f"{self.index!r} has several text fields ({self._listed()}): "
                             "name the one queries search with --field")
        return text[0]

    def measured_fields(self, name: str | None) -> list[str]:
        """The fields statistics cover: the one given, else every text field (sorted)."""
        if name is not None:
            return [self.check_text_field(name)]
        if not self.text_fields:
            raise NotFoundError(f"index {self.index!r} has no text field to measure "
                                "(qidf reads analysed text fields)")
        return sorted(self.text_fields)


def describe_index(cluster: Cluster, name: str, *, read_status: bool = True) -> IndexDescription:
    """Resolve ``name`` (an index or an alias to one index) and read its description; the
    mapping only when the index is open (a closed index has none to read).

    ``read_status=False`` skips ``_cat/indices`` (cluster monitor privileges) and takes the
    index as open: for read-only callers (``qidf mcp``) that only search it, where a closed
    index fails at the first search anyway."""
    index = cluster.resolve_index(name)
    status = cluster.index_state(index) if read_status else "open"
    settings = cluster.request(
        "GET", index_path(index, "_settings"),
        params={"flat_settings": "true", "expand_wildcards": "all"})[index]["settings"]
    description = IndexDescription(name, index, status, settings)
    if status == "open":
        mapping = cluster.request("GET", index_path(index, "_mapping"))[index]["mappings"]
        description.meta = dict(mapping.get("_meta") or {})
        description.fields = {f.path: f for f in walk_mapping(mapping.get("properties", {}))}
    return description


# (id of the cluster object, index) -> the data stream timestamp field its documents need
_STREAM_TIMESTAMP: dict[tuple[int, str], str] = {}


def _stream_timestamp(cluster: Cluster, index: str) -> str | None:
    """The timestamp field a data stream's backing index requires in every document."""
    mapping = cluster.request("GET", index_path(index, "_mapping"))[index]["mappings"]
    marker = mapping.get("_data_stream_timestamp") or {}
    if not marker.get("enabled"):
        return None
    return str((marker.get("timestamp_field") or {}).get("name") or "@timestamp")


def artificial_termvectors(cluster: Cluster, index: str, body: dict[str, Any],
                           params: dict[str, str] | None = None) -> Any:
    """``_termvectors`` of an artificial document (``body["doc"]``). A data stream's backing
    index rejects a document without the stream's timestamp field (mapper_parsing_exception,
    HTTP 500); there the document gets the epoch in that field, which changes no term of
    the fields asked for."""
    key = (id(cluster), index)
    path = index_path(index, "_termvectors")
    if key in _STREAM_TIMESTAMP:
        body = {**body, "doc": {**body["doc"], _STREAM_TIMESTAMP[key]: 0}}
        return cluster.request("POST", path, body, params)
    try:
        return cluster.request("POST", path, body, params)
    except ClusterError as exc:
        if exc.error_type != "mapper_parsing_exception":
            raise
        field_name = _stream_timestamp(cluster, index)
        if field_name is None or field_name in body["doc"]:
            raise
        _STREAM_TIMESTAMP[key] = field_name
    return artificial_termvectors(cluster, index, body, params)
