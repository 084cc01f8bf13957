"""A connected cluster: one ``request`` method and the detected engine."""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import capabilities, failures
from qidf_ctl.cluster.connection import ConnectionSettings
from qidf_ctl.cluster.engine_info import EngineInfo
from qidf_ctl.cluster.names import check_name, index_path, segment
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.requestlog import RequestLog
from qidf_ctl.cluster.transport import (
    Transport,
    elasticsearch_client_transport,
    elasticsearch_transport,
    logged,
    opensearch_client_transport,
    opensearch_transport,
)
from qidf_ctl.errors import ClusterError, UsageError

# OpenSearch Serverless answers GET / with an empty 404: no version to read. Its API is
# OpenSearch 2.x's (a subset), so it is treated as that.
SERVERLESS_ENGINE = EngineInfo("opensearch", "2.0.0")


def _root_from_nodes(probe: Transport) -> dict[str, Any]:
    """Minimal Elasticsearch distributions (the integ-test zip) have no ``GET /``; every
    OpenSearch has one. Read the version from the nodes API instead."""
    nodes = probe("GET", "/_nodes/_local", None, {"filter_path": "nodes.*.version"})["nodes"]
    number = next(iter(nodes.values()))["version"]
    return {"version": {"number": number, "distribution": "elasticsearch"}}


def _detect(probe: Transport, url: str, serverless: bool) -> EngineInfo:
    """The engine behind ``probe``, from ``GET /``."""
    try:
        root = probe("GET", "/", None, None)
    except ClusterError as exc:
        if serverless and exc.status == 404:
            return SERVERLESS_ENGINE
        if exc.status != 405:
            raise
        root = _root_from_nodes(probe)
    version = root.get("version", {}) if isinstance(root, dict) else {}
    number = str(version.get("number", "")) if isinstance(version, dict) else ""
    if not number:
        raise failures.not_a_search_engine(url, "answered GET / with JSON that names no "
                                                "version")
    distribution = "opensearch" if version.get("distribution") == "opensearch" else \
        "elasticsearch"
    try:
        engine = EngineInfo(distribution, number)
        engine.major  # noqa: B018 - a version that is no version
    except (ValueError, UsageError):
        raise failures.not_a_search_engine(url, f"reports version {number!r}") from None
    return engine


def _client_url(client: Any) -> str:
    """Where a caller's client points, for messages."""
    hosts = getattr(getattr(client, "transport", None), "hosts", None)
    if hosts and isinstance(hosts[0], dict):
        host = hosts[0]
        scheme = "https" if host.get("use_ssl") or host.get("scheme") == "https" else "http"
        return f"{scheme}://{host.get('host', '?')}:{host.get('port', '')}"
    pool = getattr(getattr(client, "transport", None), "node_pool", None)
    if pool is not None:
        return str(pool.all()[0].base_url)
    return "the cluster"


class Cluster:
    """A connected cluster: ``request`` plus the detected engine."""

    def __init__(self, transport: Transport, engine: EngineInfo, url: str = "",
                 serverless: bool = False, request_log: RequestLog | None = None) -> None:
        self._transport = logged(transport, request_log)
        self.request_log = request_log
        self.engine = engine
        self.url = redact(url)
        self.serverless = serverless

    @classmethod
    def connect(cls, source: ConnectionSettings | Any) -> Cluster:
        """Connect from ``ConnectionSettings`` (what the CLI options make), or wrap a client
        the caller configured (``opensearchpy.OpenSearch`` or ``elasticsearch.Elasticsearch``).

        The engine is detected with a plain GET / through opensearch-py, which talks to
        either engine; an Elasticsearch then gets its own client. SigV4-signed connections
        stay on opensearch-py: Amazon OpenSearch Service's legacy Elasticsearch 7.10
        domains speak its API, and only it signs.
        """
        if not isinstance(source, ConnectionSettings):
            return cls.from_client(source)
        settings = source
        log = settings.request_log
        serverless = capabilities.is_serverless(settings.url, settings.aws_service
                                                if settings.aws_region else None)
        probe = opensearch_transport(settings)
        engine = _detect(logged(probe, log), settings.url, serverless)
        if engine.distribution == "opensearch" or settings.aws_region:
            return cls(probe, engine, settings.url, serverless, log)
        return cls(elasticsearch_transport(settings), engine, settings.url, request_log=log)

    @classmethod
    def from_client(cls, client: Any, serverless: bool = False) -> Cluster:
        """Wrap an already configured client: its hosts, authentication and TLS are used
        as they are."""
        module = type(client).__module__.split(".")[0]
        url = _client_url(client)
        if module == "opensearchpy":
            transport = opensearch_client_transport(client, url)
        elif module == "elasticsearch":
            transport = elasticsearch_client_transport(client, url)
        else:
            raise UsageError(f"expected an opensearchpy.OpenSearch or elasticsearch."
                             f"Elasticsearch client, got {type(client).__name__}")
        return cls(transport, _detect(transport, url, serverless), url, serverless)

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
