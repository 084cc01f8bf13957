"""A user who holds only search and read privileges gets q-log results from `qidf search`.

The same on the real security plugin is ``tests/integration/secured/test_query_time.py``
(scripts/test_secured.sh). Here, in the default suite, the privileges are enforced by a small
proxy in front of the real node that lets through exactly the actions of OpenSearch's
``read`` action group (``indices:data/read*``: search, msearch, termvectors, field_caps,
count, get) plus ``GET /``, and answers everything else (settings, mappings, _cat,
_analyze, close, cluster settings) with the security plugin's 403. The engine behind it,
its analyzer and its scores are real.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from qidf_ctl import install
from qidf_ctl.cli import app
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.querytime import QueryTime

pytestmark = pytest.mark.integration
READ_ACTIONS = ("_search", "_msearch", "_termvectors", "_mtermvectors", "_field_caps",
                "_count", "_doc", "_mget")


def _allowed(method: str, path: str) -> bool:
    parts = [p for p in urlsplit(path).path.split("/") if p]
    if not parts:
        return method in ("GET", "HEAD")
    return any(p in READ_ACTIONS for p in parts) and method in ("GET", "POST")


def _proxy(upstream: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if not _allowed(self.command, self.path):
                payload = json.dumps({"error": {
                    "root_cause": [{"type": "security_exception", "reason":
                                    f"no permissions for {self.command} {self.path} and User "
                                    "[name=reader, backend_roles=[], requestedTenant=null]"}],
                    "type": "security_exception",
                    "reason": f"no permissions for {self.command} {self.path}"},
                    "status": 403}).encode()
                self._reply(403, payload, "application/json")
                return
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() in ("content-type", "accept")}
            req = urllib.request.Request(upstream + self.path, data=body, headers=headers,
                                         method=self.command)
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    self._reply(resp.status, resp.read(), resp.headers.get("Content-Type"))
            except urllib.error.HTTPError as exc:
                self._reply(exc.code, exc.read(), exc.headers.get("Content-Type"))

        def _reply(self, status: int, payload: bytes, content_type: str | None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type or "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

        def log_message(self, *args: object) -> None:
            return None

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


@pytest.fixture(scope="module")
def reader_url(engine_url):
    server = _proxy(engine_url.rstrip("/"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_search_only_user_gets_qlog(cluster, parity_index, go_task, reader_url):
    install.revert(cluster, parity_index)
    reader = Cluster.connect(ConnectionSettings.from_options(url=reader_url))
    qids = sorted(go_task.queries)[:20]
    for qid in qids:  # what an admin's query-time search returns
        admin = QueryTime.connect(cluster, parity_index, 0.3)
        mine = QueryTime.connect(reader, parity_index, 0.3)
        assert not mine.target.checked and mine.target.field == "text"
        a, b = admin.build(go_task.queries[qid]), mine.build(go_task.queries[qid])
        assert a.tokens == b.tokens and a.query == b.query
        assert [h["_id"] for h in admin.search(a)] == [h["_id"] for h in mine.search(b)]
    result = CliRunner().invoke(app, ["search", parity_index, go_task.queries[qids[0]],
                                      "--q", "0.3", "--json", "--url", reader_url])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["hits"] and "assumed" in data["similarity"]


def test_installing_is_refused_to_the_same_user(parity_index, reader_url):
    """The contrast: the settings path needs privileges this user does not hold."""
    result = CliRunner().invoke(app, ["apply", parity_index, "--q", "0.3", "--mode", "script",
                                      "--url", reader_url])
    assert result.exit_code == 4, result.output
