"""One small adapter over opensearch-py and elasticsearch-py: connect, authenticate, detect.

Everything else in qidf talks to a cluster through ``Cluster.request`` so that the rest of the
code is engine-agnostic and unit tests can swap in a fake transport. Credentials live only in
``ConnectionSettings`` and the client objects: ``redact`` strips them from anything printed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .errors import ClusterError, UsageError

DEFAULT_URL = "http://127.0.0.1:9200"

# (method, path, body, params) -> parsed JSON body; raises ClusterError.
Transport = Callable[[str, str, Any, "dict[str, Any] | None"], Any]


def redact(text: str) -> str:
    """Remove user:password@ from every URL in ``text``."""
    return re.sub(r"(\w+://)[^/@\s]+@", r"\1", text)


def _read_secret(value: str | None, path: str | None, env: str) -> str | None:
    if value:
        return value
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise UsageError(f"cannot read secret file {path}: {exc.strerror}") from None
    return os.environ.get(env) or None


@dataclass
class ConnectionSettings:
    """Where the cluster is and how to authenticate; secrets are never rendered by repr."""

    url: str = DEFAULT_URL
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    ca_certs: str | None = None
    insecure: bool = False
    timeout: float = 60.0

    @classmethod
    def from_options(
        cls,
        url: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_file: str | None = None,
        api_key: str | None = None,
        api_key_file: str | None = None,
        ca_certs: str | None = None,
        insecure: bool = False,
    ) -> ConnectionSettings:
        """Options first, then QIDF_* environment variables, then defaults."""
        url = url or os.environ.get("QIDF_URL") or DEFAULT_URL
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"--url must look like http(s)://host:port, got {redact(url)!r}"
            )
        username = username or os.environ.get("QIDF_USER") or parts.username
        password = _read_secret(password, password_file, "QIDF_PASSWORD") or parts.password
        if parts.username or parts.password:
            netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
            url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        if password and not username:
            raise UsageError("a password was given without a user name: add --user")
        return cls(
            url=url.rstrip("/"),
            username=username,
            password=password,
            api_key=_read_secret(api_key, api_key_file, "QIDF_API_KEY"),
            ca_certs=ca_certs or os.environ.get("QIDF_CA_CERTS") or None,
            insecure=insecure,
        )


@dataclass(frozen=True)
class EngineInfo:
    """Which engine and version answered, from ``GET /``."""

    distribution: str  # "opensearch" or "elasticsearch"
    version: str

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def default_is_legacy_bm25(self) -> bool:
        """Elasticsearch and OpenSearch < 3 score with Lucene BM25 times (k1 + 1)."""
        return not (self.distribution == "opensearch" and self.major >= 3)

    def __str__(self) -> str:
        name = "OpenSearch" if self.distribution == "opensearch" else "Elasticsearch"
        return f"{name} {self.version}"


def _error_from_status(status: int, info: Any, url: str) -> ClusterError:
    error_type, reason = "", ""
    if isinstance(info, dict):
        err = info.get("error")
        if isinstance(err, dict):
            root = (err.get("root_cause") or [err])[0]
            error_type = root.get("type", "") or err.get("type", "")
            reason = root.get("reason", "") or err.get("reason", "")
        elif isinstance(err, str):
            reason = err
    elif info:
        reason = str(info)[:300]
    if status == 401:
        return ClusterError(
            f"authentication failed at {url}: check --user/--password or --api-key",
            status=status,
            error_type="security_exception",
        )
    if status == 403:
        return ClusterError(
            f"permission denied at {url}: {reason or 'the user lacks the privileges needed'}",
            status=status,
            error_type=error_type,
        )
    text = f"{error_type}: {reason}" if error_type else (reason or f"HTTP {status}")
    return ClusterError(redact(text), status=status, error_type=error_type)


def _opensearch_transport(settings: ConnectionSettings) -> Transport:
    import opensearchpy
    from opensearchpy import exceptions as oe

    kwargs: dict[str, Any] = {"hosts": [settings.url], "timeout": settings.timeout}
    if settings.username:
        kwargs["http_auth"] = (settings.username, settings.password or "")
    if settings.api_key:
        kwargs["headers"] = {"Authorization": f"ApiKey {settings.api_key}"}
    if settings.url.startswith("https"):
        kwargs["use_ssl"] = True
        kwargs["verify_certs"] = not settings.insecure
        kwargs["ssl_show_warn"] = False
        if settings.ca_certs:
            kwargs["ca_certs"] = settings.ca_certs
    client = opensearchpy.OpenSearch(**kwargs)

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        try:
            return client.transport.perform_request(method, path, params=params, body=body)
        except oe.ConnectionError as exc:
            raise _unreachable(settings.url, exc) from None
        except oe.TransportError as exc:
            status = exc.status_code if isinstance(exc.status_code, int) else 0
            raise _error_from_status(status, exc.info, settings.url) from None

    return call


def _elasticsearch_transport(settings: ConnectionSettings) -> Transport:
    import elasticsearch
    from elastic_transport import ConnectionError as EsConnectionError

    kwargs: dict[str, Any] = {"request_timeout": settings.timeout}
    if settings.username:
        kwargs["basic_auth"] = (settings.username, settings.password or "")
    if settings.api_key:
        kwargs["api_key"] = settings.api_key
    if settings.url.startswith("https"):
        kwargs["verify_certs"] = not settings.insecure
        if settings.insecure:
            kwargs["ssl_show_warn"] = False
        if settings.ca_certs:
            kwargs["ca_certs"] = settings.ca_certs
    client = elasticsearch.Elasticsearch(settings.url, **kwargs)

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        headers = {"accept": "application/json"}
        if body is not None:
            headers["content-type"] = "application/json"
        try:
            resp = client.perform_request(method, path, params=params, headers=headers, body=body)
            return resp.body
        except EsConnectionError as exc:
            raise _unreachable(settings.url, exc) from None
        except elasticsearch.ApiError as exc:
            raise _error_from_status(exc.meta.status, exc.body, settings.url) from None

    return call


def _unreachable(url: str, exc: Exception) -> ClusterError:
    text = str(exc)
    detail = "connection refused" if "refused" in text.lower() else redact(text)[:200]
    return ClusterError(
        f"cannot reach {redact(url)} ({detail}): is the cluster running? "
        "Start the local one with `qidf engine start`, or set --url / QIDF_URL",
        error_type="connection_error",
    )


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
        probe = _opensearch_transport(settings)
        try:
            root = probe("GET", "/", None, None)
        except ClusterError as exc:
            if exc.status != 405:
                raise
            root = _root_from_nodes(probe)
        version = root.get("version", {}) if isinstance(root, dict) else {}
        number = str(version.get("number", ""))
        if not number:
            raise ClusterError(f"{settings.url} did not answer like Elasticsearch or OpenSearch")
        if version.get("distribution") == "opensearch":
            return cls(probe, EngineInfo("opensearch", number), settings.url)
        return cls(_elasticsearch_transport(settings), EngineInfo("elasticsearch", number),
                   settings.url)

    def request(
        self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        return self._transport(method, path, body, params)

    # Small helpers used across modules -------------------------------------------------

    def resolve_index(self, name: str) -> str:
        """The one concrete index behind ``name`` (an index or an alias to one index)."""
        if not name or any(ch in name for ch in "*,?") or name.startswith(("_", "-")):
            raise UsageError(f"give one index or alias name, got {name!r}")
        try:
            resolved = self.request(
                "GET", f"/{name}/_settings/index.uuid", params={"expand_wildcards": "all"}
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
        """'open' or 'close'."""
        rows = self.request("GET", f"/_cat/indices/{index}", params={"format": "json",
                                                                     "h": "index,status",
                                                                     "expand_wildcards": "all"})
        return rows[0]["status"] if rows else "missing"
