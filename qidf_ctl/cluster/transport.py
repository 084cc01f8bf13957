"""The engines' own Python clients behind one call signature, and their errors as ClusterError.

``Transport`` is ``(method, path, body, params) -> parsed JSON``: everything else in qidf
talks to a cluster through it, so the rest of the code is engine-agnostic and unit tests can
swap in a fake. Here, once for every request: the query string is encoded canonically
(``query.target``), failures become one line (``failures``), and refusals hidden in 200
answers are raised (``responses``). ``logged`` wraps any Transport so that each request it
makes is written to the request log (``--verbose``, ``--trace``; ``requestlog``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from qidf_ctl.cluster import build, failures, requestlog, responses
from qidf_ctl.cluster.connection import ConnectionSettings
from qidf_ctl.cluster.query import target
from qidf_ctl.errors import ClusterError, missing_extra

Transport = Callable[[str, str, Any, "dict[str, Any] | None"], Any]

# Kept for callers of the earlier API.
error_from_status = failures.from_status


def logged(transport: Transport, log: requestlog.RequestLog | None) -> Transport:
    """``transport`` with every request written to ``log`` (``transport`` itself when there
    is no log); the attempts the connection notes become the log's lines."""
    if log is None or getattr(transport, "request_log", None) is log:
        return transport

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        attempts, token, started = requestlog.start_request()
        try:
            response = transport(method, path, body, params)
        except BaseException as exc:
            log.record(method, path, params, attempts, time.monotonic() - started, error=exc)
            raise
        finally:
            requestlog.end_request(token)
        log.record(method, path, params, attempts, time.monotonic() - started,
                   response=response)
        return response

    call.request_log = log  # type: ignore[attr-defined]
    return call


def _checked(path: str, resp: Any, distribution: str) -> Any:
    refused = responses.refusal(path, resp, distribution)
    if refused is not None:
        raise refused
    return resp


def opensearch_client_transport(client: Any, url: str, timeout: float = 60.0) -> Transport:
    """A Transport over an ``opensearchpy.OpenSearch`` (built by qidf or by the caller)."""
    from opensearchpy import exceptions as oe

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        try:
            resp = client.transport.perform_request(method, target(path, params), body=body)
        except oe.SerializationError:
            raise failures.not_a_search_engine(url, "answered with something that is not "
                                                    "JSON") from None
        except oe.TransportError as exc:
            if isinstance(exc.status_code, int):
                if 300 <= exc.status_code < 400:
                    raise failures.redirected(exc.status_code, build.take_location(),
                                              url) from None
                # A body that is not JSON is in ``error``, not ``info``.
                info = exc.info if exc.info is not None else exc.error
                raise failures.from_status(exc.status_code, info, url, path) from None
            raise failures.from_exception(exc, url, timeout) from None
        except oe.ImproperlyConfigured as exc:
            raise ClusterError(f"client configuration: {failures.short(str(exc))}") from None
        except (OSError, ValueError) as exc:  # below the client: a socket, a bad header
            raise failures.from_exception(exc, url, timeout) from None
        return _checked(path, resp, "opensearch")

    return call


def _es_headers(client: Any) -> dict[str, str]:
    """The authorization header of a caller's Elasticsearch client (it adds it itself only
    in ``Elasticsearch.perform_request``, which this transport bypasses)."""
    headers = getattr(client, "_headers", None) or {}
    return {k: v for k, v in headers.items() if k.lower() == "authorization"}


def elasticsearch_client_transport(client: Any, url: str, timeout: float = 60.0,
                                   auth: dict[str, str] | None = None) -> Transport:
    """A Transport over an ``elasticsearch.Elasticsearch``.

    Requests go straight to the client's transport with plain JSON media types: the 9.x
    client rewrites them to "compatible-with=9" in ``perform_request``, which an 8.x server
    refuses; the transport keeps the client's connection, TLS and retry settings and sends
    these as is.
    """
    import elastic_transport

    auth = _es_headers(client) if auth is None else auth

    def call(method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        headers = {**auth, "accept": "application/json"}
        if body is not None:
            headers["content-type"] = "application/json"
        try:
            resp = client.transport.perform_request(method, target(path, params),
                                                    headers=headers, body=body,
                                                    request_timeout=timeout)
        except elastic_transport.SerializationError:
            raise failures.not_a_search_engine(url, "answered with something that is not "
                                                    "JSON") from None
        except (elastic_transport.TransportError, OSError, ValueError) as exc:
            raise failures.from_exception(exc, url, timeout) from None
        if 300 <= resp.meta.status < 400:
            raise failures.redirected(resp.meta.status, resp.meta.headers.get("location"), url)
        if not 200 <= resp.meta.status < 300:
            raise failures.from_status(resp.meta.status, resp.body, url, path, "elasticsearch")
        return _checked(path, resp.body, "elasticsearch")

    return call


def opensearch_transport(settings: ConnectionSettings) -> Transport:
    return opensearch_client_transport(build.opensearch_client(settings), settings.url,
                                       settings.timeout)


def elasticsearch_transport(settings: ConnectionSettings) -> Transport:
    try:
        import elasticsearch  # noqa: F401
    except ImportError:
        raise missing_extra("talking to Elasticsearch", "elasticsearch",
                            "elasticsearch") from None
    return elasticsearch_client_transport(build.elasticsearch_client(settings), settings.url,
                                          settings.timeout, build.auth_headers(settings))
