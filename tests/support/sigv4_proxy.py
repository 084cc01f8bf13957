"""A verifying AWS SigV4 reverse proxy on loopback, in front of a real (plain-HTTP) node.

Every request must carry a SigV4 ``Authorization`` header made with the known test
credentials. The proxy recomputes the signature with botocore's signer over the request as
it arrived (method, path, query, the headers named in ``SignedHeaders``, the body) and
answers 403 like the AWS services do when it differs; otherwise it forwards the request
unchanged and returns the node's answer.

The query string is canonicalised the way the services do ("aws": decode each parameter,
'+' being a literal plus, then re-encode RFC 3986 with ``%20`` for a space), and also byte
for byte as received ("wire"); ``mode`` says which one decides, the log keeps both. For
service ``aoss`` the ``x-amz-content-sha256`` header is required and must be signed (as
OpenSearch Serverless requires); for both it must equal the SHA-256 of the body.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import http.server
import json
import re
import socketserver
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request,"
                  r"\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$")
MAX_SKEW = dt.timedelta(minutes=5)
MISMATCH = ("The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method.")


@dataclass
class Verdict:
    ok: bool
    reason: str = ""
    matched: list[str] = field(default_factory=list)


def _aws_params(raw_query: str) -> list[tuple[str, str]]:
    """The query as AWS reads it: split on & and =, percent-decode ('+' stays '+')."""
    pairs = []
    for part in raw_query.split("&") if raw_query else []:
        key, _, value = part.partition("=")
        pairs.append((unquote_to_bytes(key).decode("utf-8", "surrogateescape"),
                      unquote_to_bytes(value).decode("utf-8", "surrogateescape")))
    return pairs


class Verifier:
    """Checks one request's signature against the test credentials."""

    def __init__(self, creds: Credentials, region: str, service: str, mode: str = "aws") -> None:
        self.creds, self.region, self.service, self.mode = creds, region, service, mode

    def _signature(self, method: str, host: str, path: str, query: str,
                   headers: dict[str, str], body: bytes, stamp: str, canon: str) -> str:
        base = f"http://{host}{path}"
        if canon == "wire":
            req = AWSRequest(method=method, url=base + (f"?{query}" if query else ""), data=body,
                             headers=headers)
        else:
            req = AWSRequest(method=method, url=base, data=body, headers=headers,
                             params=_aws_params(query))
        req.context["timestamp"] = stamp
        signer = SigV4Auth(self.creds, self.service, self.region)
        return signer.signature(signer.string_to_sign(req, signer.canonical_request(req)), req)

    def verify(self, method: str, raw_target: str, headers: Any, body: bytes) -> Verdict:
        auth = (headers.get("Authorization") or "").strip()
        match = AUTH.match(auth)
        if not match:
            return Verdict(False, "missing or malformed SigV4 Authorization header")
        akid, date, region, service, signed, signature = match.groups()
        if akid != self.creds.access_key:
            return Verdict(False, "The security token included in the request is invalid")
        if (region, service) != (self.region, self.service):
            return Verdict(False, f"Credential should be scoped to {self.region}/{self.service}"
                                  f", not {region}/{service}")
        stamp = headers.get("X-Amz-Date") or ""
        try:
            when = dt.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.timezone.utc)
        except ValueError:
            return Verdict(False, "missing or malformed X-Amz-Date")
        if stamp[:8] != date or abs(dt.datetime.now(dt.timezone.utc) - when) > MAX_SKEW:
            return Verdict(False, "Signature expired or scoped to another date")
        names = signed.split(";")
        if "host" not in names or (self.creds.token and "x-amz-security-token" not in names):
            return Verdict(False, "host and x-amz-security-token must be signed")
        payload = headers.get("X-Amz-Content-SHA256")
        if self.service == "aoss" and (payload is None or "x-amz-content-sha256" not in names):
            return Verdict(False, "aoss requires a signed x-amz-content-sha256 header")
        if payload not in (None, "UNSIGNED-PAYLOAD") and \
                payload != hashlib.sha256(body).hexdigest():
            return Verdict(False, "x-amz-content-sha256 does not match the body")
        signed_headers = {}
        for name in names:
            values = headers.get_all(name) if hasattr(headers, "get_all") else [headers.get(name)]
            if not values or values[0] is None:
                return Verdict(False, f"signed header {name!r} is missing")
            signed_headers[name] = ",".join(values)
        parts = urlsplit(raw_target)
        verdict = Verdict(False)
        for canon in ("wire", "aws"):
            if self._signature(method, signed_headers["host"], parts.path or "/", parts.query,
                               signed_headers, body, stamp, canon) == signature:
                verdict.matched.append(canon)
        verdict.ok = self.mode in verdict.matched
        verdict.reason = "" if verdict.ok else MISMATCH
        return verdict


class Proxy(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """The proxy server; ``log`` has one entry per request (target, verdict)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, verifier: Verifier, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.verifier = verifier
        up = urlsplit(upstream)
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self) -> list[dict[str, Any]]:
        with self.lock:
            out, self.log = self.log, []
        return out


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Proxy

    def log_message(self, *args: object) -> None:
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        verdict = self.server.verifier.verify(self.command, self.path, self.headers, body)
        with self.server.lock:
            self.server.log.append({"method": self.command, "target": self.path,
                                    "ok": verdict.ok, "matched": verdict.matched,
                                    "reason": verdict.reason})
        if not verdict.ok:
            self._reply(403, json.dumps({"message": verdict.reason}).encode(),
                        {"Content-Type": "application/json",
                         "x-amzn-ErrorType": "InvalidSignatureException"})
            return
        conn = http.client.HTTPConnection(*self.server.upstream, timeout=120)
        forwarded = {k: v for k, v in self.headers.items()
                     if k.lower() not in ("host", "authorization", "connection",
                                          "transfer-encoding")}
        forwarded["Content-Length"] = str(len(body))
        try:
            conn.request(self.command, self.path, body=body or None, headers=forwarded)
            resp = conn.getresponse()
            data = resp.read()
            self._reply(resp.status, data, {k: v for k, v in resp.getheaders() if k.lower()
                                            not in ("transfer-encoding", "connection",
                                                    "content-length")})
        finally:
            conn.close()

    def _reply(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle


def serve(upstream: str, creds: Credentials, region: str, service: str,
          mode: str = "aws") -> Proxy:
    """Start a proxy on a free loopback port; ``shutdown()`` stops it."""
    server = Proxy(Verifier(creds, region, service, mode), upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
