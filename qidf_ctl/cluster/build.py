"""The one place that turns ``ConnectionSettings`` into a client object (opensearch-py or
elasticsearch-py), for the CLI and the Python API alike.

Choices, each for a reason found against real nodes (``docs/how-to/managed.md``):
- urllib3 connections by default: certificate pinning works there (opensearch-py's requests
  connection silently ignores it) and no ``REQUESTS_CA_BUNDLE`` overrides ``--ca-certs``;
- with a proxy, the requests connections (the only ones that speak to an HTTP proxy), with
  ``trust_env`` off and the proxy qidf resolved itself, so ``REQUESTS_CA_BUNDLE`` and
  ``.netrc`` cannot change what was asked for;
- authorization headers built by qidf (``auth.py``), a TLS context built by qidf
  (``tls.py``), SigV4 signed by qidf (``sigv4.py``);
- retries on 429/502/503/504 and on connection errors, never on timeouts (a timed-out write
  may have landed; repeating it is not safe in general);
- connections that note each HTTP attempt (status, bytes, time) for the request log
  (``requestlog``): the clients see every attempt, qidf's transport only the outcome.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from typing import Any

from qidf_ctl.cluster import auth, tls
from qidf_ctl.cluster.connection import ConnectionSettings
from qidf_ctl.cluster.requestlog import note_attempt
from qidf_ctl.cluster.sigv4 import SigV4Auth, default_credentials
from qidf_ctl.errors import missing_extra

RETRY_ON_STATUS = (429, 502, 503, 504)
# The clients log failed requests as warnings; with no handler, Python prints them on
# stderr, around qidf's own one-line error.
for _name in ("opensearch", "elastic_transport", "urllib3"):
    logging.getLogger(_name).addHandler(logging.NullHandler())
    logging.getLogger(_name).propagate = False


_LOCATION: ContextVar[str | None] = ContextVar("qidf_redirect_location", default=None)


def take_location() -> str | None:
    """The ``Location`` of the last redirect answer in this context (then forgotten): the
    clients turn a 3xx into an error without its headers."""
    location = _LOCATION.get()
    _LOCATION.set(None)
    return location


class _NotingPool:
    """A urllib3 pool that notes the ``Location`` of a redirect answer (not followed)."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    def urlopen(self, *args: Any, **kwargs: Any) -> Any:
        response = self._pool.urlopen(*args, **kwargs)
        if 300 <= int(getattr(response, "status", 0)) < 400:
            _LOCATION.set(response.headers.get("location"))
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


def _size(response: Any) -> int | None:
    return len(response.encode() if isinstance(response, str) else response) \
        if response is not None else None


def observed_connection(base: Any) -> Any:
    """An opensearch-py connection class that notes each attempt for the request log."""

    class Observed(base):  # type: ignore[misc, valid-type]
        def _create_urllib3_pool(self) -> None:
            super()._create_urllib3_pool()
            self.pool = _NotingPool(getattr(self, "pool"))  # noqa: B009 - set by the base

        def log_request_success(self, method: str, full_url: str, path: str, body: Any,
                                status_code: int, response: Any, duration: float) -> None:
            note_attempt(status_code, _size(response), duration)
            super().log_request_success(method, full_url, path, body, status_code, response,
                                        duration)

        def log_request_fail(self, method: str, full_url: str, path: str, body: Any,
                             duration: float, status_code: int | None = None,
                             response: Any = None, exception: Exception | None = None) -> None:
            note_attempt(status_code, _size(response), duration,
                         type(exception).__name__ if exception is not None else None)
            super().log_request_fail(method, full_url, path, body, duration, status_code,
                                     response, exception)

    return Observed


def observed_node(base: Any) -> Any:
    """An elastic-transport node class that notes each attempt for the request log."""

    class Observed(base):  # type: ignore[misc, valid-type]
        def perform_request(self, method: str, target: str, *args: Any, **kwargs: Any) -> Any:
            started = time.monotonic()
            try:
                resp = super().perform_request(method, target, *args, **kwargs)
            except Exception as exc:
                note_attempt(None, None, time.monotonic() - started, type(exc).__name__)
                raise
            note_attempt(resp.meta.status, _size(resp.body), time.monotonic() - started)
            return resp

    return Observed


def auth_headers(settings: ConnectionSettings) -> dict[str, str]:
    """The ``authorization`` header for basic, API-key or bearer authentication (none for
    SigV4, which signs each request, or for client-certificate authentication)."""
    if settings.username is not None:
        return {"authorization": auth.basic(settings.username, settings.password or "")}
    if settings.api_key:
        return {"authorization": auth.api_key(settings.api_key)}
    if settings.bearer_token:
        return {"authorization": auth.bearer(settings.bearer_token)}
    return {}


def ssl_context(settings: ConnectionSettings) -> Any:
    return tls.ssl_context(settings.ca_certs, settings.client_cert, settings.client_key,
                           verify=not settings.insecure,
                           pinned=settings.ssl_assert_fingerprint is not None)


def _proxied(session: Any, settings: ConnectionSettings) -> None:
    """A requests session that uses exactly the resolved proxy and TLS settings."""
    session.trust_env = False
    session.proxies = {"http": settings.proxy, "https": settings.proxy}


def opensearch_client(settings: ConnectionSettings) -> Any:
    """An ``opensearchpy.OpenSearch`` for ``settings``."""
    try:
        import opensearchpy
    except ImportError:
        raise missing_extra("talking to OpenSearch", None, "opensearch-py") from None
    kwargs: dict[str, Any] = {
        "hosts": [settings.url], "timeout": settings.timeout,
        "max_retries": settings.retries, "retry_on_status": RETRY_ON_STATUS,
        "retry_on_timeout": False, "headers": auth_headers(settings),
    }
    if settings.aws_region:
        kwargs["http_auth"] = SigV4Auth(default_credentials(), settings.aws_region,
                                        settings.aws_service)
    if settings.proxy:
        base: Any = observed_connection(opensearchpy.RequestsHttpConnection)

        class ProxiedConnection(base):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kw: Any) -> None:
                super().__init__(*args, **kw)
                _proxied(self.session, settings)

        kwargs["connection_class"] = ProxiedConnection
        if settings.https:
            kwargs.update(use_ssl=True, ssl_show_warn=False,
                          verify_certs=not settings.insecure)
            if settings.ca_certs and not settings.insecure:
                kwargs["ca_certs"] = settings.ca_certs
            if settings.client_cert:
                kwargs.update(client_cert=settings.client_cert, client_key=settings.client_key)
    else:
        kwargs["connection_class"] = observed_connection(opensearchpy.Urllib3HttpConnection)
        if settings.https:
            kwargs.update(use_ssl=True, ssl_context=ssl_context(settings))
            if settings.ssl_assert_fingerprint:
                kwargs["ssl_assert_fingerprint"] = settings.ssl_assert_fingerprint
    return opensearchpy.OpenSearch(**kwargs)


def elasticsearch_client(settings: ConnectionSettings) -> Any:
    """An ``elasticsearch.Elasticsearch`` for ``settings`` (authorization headers are added
    per request by the transport, see ``transport.py``)."""
    try:
        import elasticsearch
    except ImportError:
        raise missing_extra("talking to Elasticsearch", "elasticsearch",
                            "elasticsearch") from None
    kwargs: dict[str, Any] = {
        "request_timeout": settings.timeout, "max_retries": settings.retries,
        "retry_on_status": RETRY_ON_STATUS, "retry_on_timeout": False,
    }
    if settings.proxy:
        from elastic_transport import RequestsHttpNode

        class ProxiedNode(observed_node(RequestsHttpNode)):  # type: ignore[misc]
            def __init__(self, config: Any) -> None:
                super().__init__(config)
                _proxied(self.session, settings)

        kwargs["node_class"] = ProxiedNode
        if settings.https:
            kwargs.update(verify_certs=not settings.insecure, ssl_show_warn=False)
            if settings.ca_certs and not settings.insecure:
                kwargs["ca_certs"] = settings.ca_certs
            if settings.client_cert:
                kwargs.update(client_cert=settings.client_cert, client_key=settings.client_key)
    else:
        from elastic_transport import Urllib3HttpNode

        kwargs["node_class"] = observed_node(Urllib3HttpNode)
    if not settings.proxy and settings.https:
        kwargs["ssl_context"] = ssl_context(settings)
        if settings.ssl_assert_fingerprint:
            kwargs["ssl_assert_fingerprint"] = settings.ssl_assert_fingerprint
    return elasticsearch.Elasticsearch(settings.url, **kwargs)
