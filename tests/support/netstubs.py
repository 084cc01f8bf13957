"""Loopback stand-ins for what sits between qidf and a cluster, each on a free port:

- ``ForwardProxy``: an HTTP proxy (CONNECT tunnels and plain forwarding) that records what
  passed and can map host names to 127.0.0.1 (as a proxy resolves names for its clients);
- ``black_hole``: accepts connections and never answers (timeouts);
- ``Canned``: answers every request with one fixed status, content type and body (HTML
  pages, 503s, JSON that is no search engine's), counting hits (retries).
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
                self.send_response(status)
                for key, value in resp_headers.items():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

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


def free_port() -> int:
    """A port nothing listens on (connection refused), at least right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
