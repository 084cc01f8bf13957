"""What every statistics run needs to know about an index before reading it."""

from __future__ import annotations

from dataclasses import dataclass

from qidf_ctl.cluster import Cluster, IndexDescription, describe_index, index_path


@dataclass(frozen=True)
class IndexFacts:
    """The index's description plus its document counts."""

    description: IndexDescription
    live_documents: int
    deleted_documents: int  # Lucene level, primaries (nested documents count too)
    deleted_in_any_copy: bool

    @property
    def name(self) -> str:
        return self.description.name

    @property
    def index(self) -> str:
        return self.description.index

    @property
    def shards(self) -> int:
        return self.description.shards

    def source_path(self, field: str) -> str:
        """Where ``field``'s value sits in ``_source`` (a multi-field reads its parent's)."""
        return self.description.fields[field].source_path


def read_facts(cluster: Cluster, name: str) -> IndexFacts:
    """Resolve ``name`` (index or alias to one index) and read its fields, shards and counts."""
    description = describe_index(cluster, name)
    description.require_open("read its statistics")
    index = description.index
    stats = cluster.request("GET", index_path(index, "_stats", "docs"))["_all"]
    live = int(cluster.request("POST", index_path(index, "_count"),
                               {"query": {"match_all": {}}})["count"])
    return IndexFacts(
        description=description,
        live_documents=live,
        deleted_documents=int(stats["primaries"]["docs"]["deleted"]),
        deleted_in_any_copy=int(stats["total"]["docs"]["deleted"]) > 0,
    )
