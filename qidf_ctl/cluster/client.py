"""A connected cluster: one ``request`` method and the detected engine."""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster.connection import ConnectionSettings
from qidf_ctl.cluster.engine_info import EngineInfo
from qidf_ctl.cluster.names import check_name, index_path, segment
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.transport import (
    Transport,
    elasticsearch_transport,
    opensearch_transport,
)
from qidf_ctl.errors import ClusterError, UsageError


def _root_from_nodes(probe: Transport) -> dict[str, Any]:
    """Minimal Elasticsearch distributions (the integ-test zip) have no ``GET /``; every
    OpenSearch has one. Read the version from the nodes API instead."""
    nodes = probe("GET", "/_nodes/_local", None, {"filter_path": "nodes.*.version"})["nodes"]
    number = next(iter(nodes.values()))["version"]
    return {"version": {"number": number, "distribution": "elasticsearch"}}


class Cluster:
    """A connected cluster: ``request`` plus the detected engine."""

    def __init__(self, transport: Transport, engine: EngineInfo, url: str = "") -> None:
        self._transport = transport
        self.engine = engine
        self.url = redact(url)

    @classmethod
    def connect(cls, settings: ConnectionSettings) -> Cluster:
        """Detect the engine with a plain GET / and use that engine's own client."""
        probe = opensearch_transport(settings)
        try:
            root = probe("GET", "/", None, None)
        except ClusterError as exc:
            if exc.status != 405:
                raise
            root = _root_from_nodes(probe)
        version = root.get("version", {}) if isinstance(root, dict) else {}
        number = str(version.get("number", ""))
        if not number:
            raise ClusterError(f"{redact(settings.url)} did not answer like Elasticsearch or "
                               "OpenSearch")
        if version.get("distribution") == "opensearch":
            return cls(probe, EngineInfo("opensearch", number), settings.url)
        return cls(elasticsearch_transport(settings), EngineInfo("elasticsearch", number),
                   settings.url)

    def request(
        self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        return self._transport(method, path, body, params)

    def resolve_index(self, name: str) -> str:
        """The one concrete index behind ``name`` (an index or an alias to one index)."""
        check_name(name, "index or alias")
        try:
            resolved = self.request(
                "GET", index_path(name, "_settings", "index.uuid"),
                params={"expand_wildcards": "all"}
            )
        except ClusterError as exc:
            if exc.status == 404:
                raise ClusterError(
                    f"index {name!r} not found: check the name with GET _cat/indices",
                    status=404, error_type="index_not_found_exception",
                ) from None
            raise
        names = sorted(resolved)
        if len(names) != 1:
            raise UsageError(
                f"{name!r} points at {len(names)} indices ({', '.join(names)}): name one index"
            )
        return names[0]

    def index_state(self, index: str) -> str:
        """'open', 'close', or 'missing'."""
        rows = self.request("GET", f"/_cat/indices/{segment(index)}",
                            params={"format": "json", "h": "index,status",
                                    "expand_wildcards": "all"})
        return rows[0]["status"] if rows else "missing"
