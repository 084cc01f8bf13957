"""The engines' own Python clients behind one call signature, and their errors as ClusterError.

``Transport`` is ``(method, path, body, params) -> parsed JSON``: everything else in qidf
talks to a cluster through it, so the rest of the code is engine-agnostic and unit tests can
swap in a fake.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from qidf_ctl.cluster.connection import ConnectionSettings
from qidf_ctl.cluster.redact import redact
from qidf_ctl.errors import ClusterError, missing_extra

Transport = Callable[[str, str, Any, "dict[str, Any] | None"], Any]


def error_from_status(status: int, info: Any, url: str) -> ClusterError:
    """One line from an engine's error body: its root cause's type and reason."""
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


def unreachable(url: str, exc: Exception) -> ClusterError:
    text = str(exc)
    detail = "connection refused" if "refused" in text.lower() else redact(text)[:200]
    return ClusterError(
        f"cannot reach {redact(url)} ({detail}): is the cluster running? "
        "Start the local one with `qidf engine start`, or set --url / QIDF_URL",
        error_type="connection_error", retryable=True,
    )


def opensearch_transport(settings: ConnectionSettings) -> Transport:
    try:
        import opensearchpy
        from opensearchpy import exceptions as oe
    except ImportError:
        raise missing_extra("talking to OpenSearch", "opensearch", "opensearch-py") from None

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
            raise unreachable(settings.url, exc) from None
        except oe.TransportError as exc:
            status = exc.status_code if isinstance(exc.status_code, int) else 0
            raise error_from_status(status, exc.info, settings.url) from None

    return call


def elasticsearch_transport(settings: ConnectionSettings) -> Transport:
    try:
        import elasticsearch
        from elastic_transport import ConnectionError as EsConnectionError
    except ImportError:
        raise missing_extra("talking to Elasticsearch", "elasticsearch",
                            "elasticsearch") from None

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
    # Straight to the client's transport with plain JSON media types: the 9.x client rewrites
    # them to "compatible-with=9" in perform_request, which an 8.x server refuses; the
    # transport keeps the client's connection, TLS and retry settings and sends these as is.
    auth: dict[str, str] = {}
    if settings.username:
        token = base64.b64encode(f"{settings.username}:{settings.password or ''}".encode())
        auth["authorization"] = f"Basic {token.decode()}"
    if settings.api_key:
        auth["authorization"] = f"ApiKey {settings.api_key}"

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        headers = {**auth, "accept": "application/json"}
        if body is not None:
            headers["content-type"] = "application/json"
        target = f"{path}?{urlencode(_query_values(params))}" if params else path
        try:
            resp = client.transport.perform_request(method, target, headers=headers, body=body,
                                                    request_timeout=settings.timeout)
        except EsConnectionError as exc:
            raise unreachable(settings.url, exc) from None
        if not 200 <= resp.meta.status < 300:
            raise error_from_status(resp.meta.status, resp.body, settings.url)
        return resp.body

    return call


def _query_values(params: dict[str, Any]) -> dict[str, str]:
    """Query parameters as the engines spell them (booleans lower-case)."""
    return {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in params.items()}
