"""Loopback stand-ins for what sits between qidf and a cluster, each on a free port:

- ``ForwardProxy``: an HTTP proxy (CONNECT tunnels and plain forwarding) that records what
  passed and can map host names to 127.0.0.1 (as a proxy resolves names for its clients);
- ``black_hole``: accepts connections and never answers (timeouts);
- ``Canned``: answers every request with one fixed status, content type and body (HTML
  pages, 503s, JSON that is no search engine's), counting hits (retries);
- ``EchoCredentials``: a hostile server (or proxy) that answers with the credentials it
  decoded from the request's Authorization header, in an error body of each shape and in a
  ``Warning`` header (which opensearch-py turns into a Python warning);
- ``EchoingReverseProxy``: in front of a real cluster, the cluster's own refusals with the
  decoded credentials added by the proxy, and (``warn``) every answer, successes included,
  with them in a ``Warning`` header.
"""

from __future__ import annotations

import http.server
import select
import socket
import socketserver
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable
from typing import Any


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, handler: Any) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.seen: list[str] = []
        self.lock = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a client that hangs up or fails the handshake is what some tests do, and
        the default handler prints a traceback into the output the tests inspect."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def record(self, what: str) -> None:
        with self.lock:
            self.seen.append(what)

    def take(self) -> list[str]:
        with self.lock:
            out, self.seen = self.seen, []
        return out


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def reply(self, status: int, data: bytes, headers: Iterable[tuple[str, str]]) -> None:
        """One whole answer: status, ``headers``, the length of ``data``, then ``data``."""
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _pipe(a: socket.socket, b: socket.socket) -> None:
    while True:
        ready, _, _ = select.select([a, b], [], [], 15)
        if not ready:
            return
        for sock in ready:
            data = sock.recv(65536)
            if not data:
                return
            (b if sock is a else a).sendall(data)


class ForwardProxy(_Server):
    """``seen`` holds ``CONNECT host:port`` or ``GET http://...`` per request through it;
    ``hosts`` maps names (e.g. ``es.localhost``) to the address the proxy connects to."""

    def __init__(self, hosts: dict[str, str] | None = None) -> None:
        self.hosts = hosts or {}
        proxy = self

        class Handler(_Quiet):
            def do_CONNECT(self) -> None:
                proxy.record(f"CONNECT {self.path}")
                host, _, port = self.path.rpartition(":")
                upstream = socket.create_connection((proxy.hosts.get(host, host), int(port)),
                                                    timeout=15)
                self.send_response(200, "Connection established")
                self.end_headers()
                try:
                    _pipe(self.connection, upstream)
                finally:
                    upstream.close()
                    self.close_connection = True

            def _forward(self) -> None:
                proxy.record(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("proxy-connection", "connection")}
                req = urllib.request.Request(self.path, data=body, method=self.command,
                                             headers=headers)
                opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                try:
                    resp = opener.open(req, timeout=60)
                    status, resp_headers, data = resp.status, resp.headers, resp.read()
                except urllib.error.HTTPError as exc:
                    status, resp_headers, data = exc.code, exc.headers, exc.read()
                self.reply(status, data, [
                    (k, v) for k, v in resp_headers.items()
                    if k.lower() not in ("transfer-encoding", "connection", "content-length")])

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

        super().__init__(Handler)


class Canned(_Server):
    """Answers every request with ``status``, ``content_type`` and ``body``."""

    def __init__(self, status: int = 200, body: bytes = b"", content_type: str = "text/html",
                 headers: dict[str, str] | None = None,
                 tls: tuple[str, str] | None = None) -> None:
        """``tls`` = (certificate, key) PEM paths serves HTTPS instead of HTTP."""
        canned = self

        class Handler(_Quiet):
            def _answer(self) -> None:
                canned.record(f"{self.command} {self.path}")
                canned.last_headers = {k.lower(): v for k, v in self.headers.items()}
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                self.reply(status, body,
                           [("Content-Type", content_type), *(headers or {}).items()])

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _answer

        self.tls = tls
        self.last_headers: dict[str, str] = {}
        super().__init__(Handler)

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = super().get_request()
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            sock = ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"


class BlackHole:
    """Accepts TCP connections and never answers; ``close()`` lets them go."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


def warning_header(text: str) -> tuple[str, str]:
    """A ``Warning`` header as engines send it (``299 Engine-version "text"``), the text as
    UTF-8 bytes (http.server writes header values as latin-1: a client decodes them so); a
    line break, which no header can hold, as a space."""
    text = " ".join(text.splitlines())
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    value = f'299 OpenSearch-2.19.6-stand-in "{quoted}"'
    return "Warning", value.encode("utf-8", "surrogateescape").decode("latin-1")


def free_port() -> int:
    """A port nothing listens on (connection refused), at least right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def decoded_credentials(header: str) -> list[str]:
    """What a server can read out of an Authorization header: the decoded ``user:password``
    of Basic, the decoded ``id:key`` of ApiKey (or the key as sent), a bearer token; and each
    part after the first ``:``."""
    import base64
    import binascii
    import contextlib

    scheme, _, value = header.partition(" ")
    found = [value]
    if scheme.lower() in ("basic", "apikey"):
        with contextlib.suppress(binascii.Error, UnicodeDecodeError, ValueError):
            found.append(base64.b64decode(value + "=" * (-len(value) % 4)).decode("utf-8"))
    for text in list(found):
        if ":" in text:
            found += text.split(":", 1)
    return [f for f in found if f]


# What a hostile server (or a proxy in front of it) answers with the credentials it decoded:
# a search engine's JSON error, a 403 naming the "user", a proxy's plain text, an HTML page,
# and a 200 whose cluster name is the credentials.
ECHO_SHAPES = ("json-400", "json-500", "security-403", "text-502", "html-401", "root-200")


class EchoCredentials(_Server):
    """Answers every request with the credentials it decoded from the request, in the body
    shape ``shape`` (one of ``ECHO_SHAPES``) and (``warn``) in a ``Warning`` header."""

    def __init__(self, shape: str, warn: bool = True) -> None:
        import json as _json

        echo = self

        class Handler(_Quiet):
            def _answer(self) -> None:
                echo.record(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                parts = decoded_credentials(self.headers.get("Authorization") or "")
                said = " | ".join(parts) or "no credentials"
                if shape == "root-200" and self.path.split("?")[0] == "/":
                    status, kind = 200, "application/json"
                    body = _json.dumps({"name": said, "cluster_name": said, "version": {
                        "number": "2.19.6", "distribution": "opensearch",
                        "build_type": said}, "tagline": said})
                elif shape == "security-403" or shape == "root-200":
                    status, kind = 403, "application/json"
                    body = _json.dumps({"error": {"root_cause": [{
                        "type": "security_exception", "reason": f"no permissions for "
                        f"[indices:admin/get] and User [name={said}, backend_roles=[], "
                        "requestedTenant=null]"}], "type": "security_exception",
                        "reason": f"no permissions for [indices:admin/get] and User "
                                  f"[name={said}]"}, "status": 403})
                elif shape.startswith("json-"):
                    status, kind = int(shape[5:]), "application/json"
                    body = _json.dumps({"error": {"root_cause": [{
                        "type": "illegal_argument_exception", "reason": f"credentials {said}"}],
                        "type": "illegal_argument_exception",
                        "reason": f"bad header; decoded: {said}"}, "status": status})
                elif shape == "text-502":
                    status, kind = 502, "text/plain; charset=utf-8"
                    last = parts[-1] if parts else ""
                    body = f"upstream refused the credentials password={last} decoded={said}"
                else:
                    status, kind = 401, "text/html; charset=utf-8"
                    body = f"<html><body>user:password {said} refused</body></html>"
                headers = [("Content-Type", kind)]
                if warn:
                    headers.append(warning_header(f"the request carried {said}"))
                self.reply(status, body.encode("utf-8", "surrogateescape"), headers)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _answer

        super().__init__(Handler)


def _poisoned(data: bytes, said: str) -> bytes:
    """A search answer whose hits' text fields begin with ``said`` (where a snippet shows
    it, and where one cut short would cut it)."""
    import json as _json

    try:
        answer = _json.loads(data)
        for hit in answer["hits"]["hits"]:
            source = hit.get("_source") or {}
            for key, value in source.items():
                if isinstance(value, str):
                    source[key] = f"the request carried {said} {value}"
    except (ValueError, KeyError, TypeError, AttributeError):
        return data
    return _json.dumps(answer).encode()


class EchoingReverseProxy(_Server):
    """A plain-HTTP reverse proxy in front of a real cluster (``upstream``, https with
    ``ca_certs``) that passes every request on and, on an error answer, adds the credentials
    it decoded from the request to the body: the cluster's own refusal, echoed by a proxy
    that read the Authorization header. ``refusals_as``: the status it answers a refusal
    (401/403) with, as a gateway that wraps it would (502: the body is then what a client
    shows). ``warn``: every answer also carries the decoded credentials in a ``Warning``
    header, successes included; ``poison``: every hit of a successful search holds them at
    the start of each text field of its ``_source``."""

    def __init__(self, upstream: str, ca_certs: str | None = None,
                 refusals_as: int | None = 502, warn: bool = False,
                 poison: bool = False) -> None:
        import json as _json

        proxy = self
        context = ssl.create_default_context(cafile=ca_certs) if ca_certs else None

        class Handler(_Quiet):
            def _forward(self) -> None:
                proxy.record(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "connection", "content-length")}
                req = urllib.request.Request(upstream.rstrip("/") + self.path, data=body,
                                             method=self.command, headers=headers)
                try:
                    resp = urllib.request.urlopen(req, timeout=60, context=context)
                    status, kind, data = resp.status, resp.headers.get("Content-Type"), \
                        resp.read()
                except urllib.error.HTTPError as exc:
                    status, kind, data = exc.code, exc.headers.get("Content-Type"), exc.read()
                if poison and status < 300 and "_search" in self.path:
                    data = _poisoned(data, " | ".join(decoded_credentials(
                        self.headers.get("Authorization") or "")) or "none")
                if status >= 400:
                    said = " | ".join(decoded_credentials(self.headers.get("Authorization")
                                                          or "")) or "none"
                    try:
                        answer = _json.loads(data or b"{}")
                        answer.setdefault("error", {})
                        if isinstance(answer["error"], dict):
                            answer["error"]["reason"] = (
                                f"{answer['error'].get('reason', '')} [proxy: the request "
                                f"carried {said}]")
                        data, kind = _json.dumps(answer).encode(), "application/json"
                    except ValueError:
                        data += f" [proxy: the request carried {said}]".encode()
                    if refusals_as and status in (401, 403):
                        status = refusals_as
                headers = [("Content-Type", kind or "application/json")]
                if warn:
                    said = " | ".join(decoded_credentials(self.headers.get("Authorization")
                                                          or "")) or "none"
                    headers.append(warning_header(f"the request carried {said}"))
                self.reply(status, data, headers)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

        super().__init__(Handler)
