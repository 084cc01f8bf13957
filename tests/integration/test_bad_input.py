"""Bad input through the real CLI: one clear line, a non-zero exit, and the index exactly as
it was (open and searchable, or closed if it was closed)."""

from __future__ import annotations

import base64
import http.server
import os
import subprocess
import sys
import threading
import urllib.request

import pytest

from qidf_ctl.evaluation import indexing

pytestmark = pytest.mark.integration
INDEX = "qidf-it-bad"
PASSWORD = "right-Pa55word"


@pytest.fixture(scope="module")
def bad_index(cluster):
    indexing.create_index(cluster, INDEX)
    indexing.bulk_index(cluster, INDEX, {"1": "handleWebSocketUpgrade upgrades the connection"})
    yield INDEX
    cluster.request("DELETE", f"/{INDEX}", None, {"ignore_unavailable": "true"})


def qidf(*args: str, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "QIDF_URL": url}
    env.pop("QIDF_PASSWORD", None)
    return subprocess.run([sys.executable, "-m", "qidf_ctl", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def _assert_untouched(cluster, before):
    assert cluster.index_state(INDEX) == "open"
    after = cluster.request("GET", f"/{INDEX}/_settings", params={"flat_settings": "true"})
    assert after == before
    hits = cluster.request("POST", f"/{INDEX}/_search", {"query": {"match": {
        indexing.FIELD: "handleWebSocketUpgrade"}}})["hits"]["hits"]
    assert len(hits) == 1


def _one_line(proc, *needles):
    assert proc.returncode != 0
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0]


@pytest.mark.parametrize("q, code", [("NaN", 2), ("-1", 2), ("3", 2), ("abc", 2)])
def test_bad_q(cluster, bad_index, engine_url, q, code):
    before = cluster.request("GET", f"/{INDEX}/_settings", params={"flat_settings": "true"})
    proc = qidf("apply", INDEX, "--q", q, url=engine_url)
    _one_line(proc, "q must be")
    assert proc.returncode == code
    _assert_untouched(cluster, before)


def test_missing_index(cluster, bad_index, engine_url):
    proc = qidf("apply", "no-such-index", "--q", "0.3", url=engine_url)
    _one_line(proc, "not found")


def test_unreachable_url(cluster, bad_index):
    before = cluster.request("GET", f"/{INDEX}/_settings", params={"flat_settings": "true"})
    proc = qidf("apply", INDEX, "--q", "0.3", url="http://127.0.0.1:9")
    _one_line(proc, "cannot reach http://127.0.0.1:9")
    _assert_untouched(cluster, before)


def test_closed_index_stays_closed(cluster, bad_index, engine_url):
    cluster.request("POST", f"/{INDEX}/_close")
    try:
        proc = qidf("apply", INDEX, "--q", "0.3", url=engine_url)
        _one_line(proc, "is closed")
        assert cluster.index_state(INDEX) == "close"
    finally:
        cluster.request("POST", f"/{INDEX}/_open")
        cluster.request("GET", f"/_cluster/health/{INDEX}?wait_for_status=yellow&timeout=30s")


class _AuthProxy(http.server.BaseHTTPRequestHandler):
    """A basic-auth gate in front of the engine, as managed clusters have: a real HTTP 401
    for a wrong password (the local engine has no security plugin)."""

    upstream = ""
    expected = "Basic " + base64.b64encode(f"admin:{PASSWORD}".encode()).decode()

    def _forward(self):
        if self.headers.get("Authorization") != self.expected:
            body = b'{"error":{"type":"security_exception","reason":"unauthorized"},"status":401}'
            self.send_response(401)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else None
        req = urllib.request.Request(self.upstream + self.path, data=data, method=self.command,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req) as resp:
                status, payload = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, payload = exc.code, exc.read()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

    def log_message(self, *args):
        return


@pytest.fixture(scope="module")
def auth_url(engine_url):
    _AuthProxy.upstream = engine_url
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AuthProxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_wrong_password_is_one_line_and_secret_free(cluster, bad_index, auth_url):
    before = cluster.request("GET", f"/{INDEX}/_settings", params={"flat_settings": "true"})
    wrong = "wr0ng-Secret"
    proc = qidf("apply", INDEX, "--q", "0.3", "--user", "admin", "--password", wrong,
                url=auth_url)
    _one_line(proc, "authentication failed")
    assert wrong not in proc.stderr
    _assert_untouched(cluster, before)


def test_right_password_through_the_gate(cluster, bad_index, auth_url):
    proc = qidf("show", INDEX, "--user", "admin", "--password", PASSWORD, url=auth_url)
    assert proc.returncode == 0, proc.stderr
    assert PASSWORD not in proc.stdout + proc.stderr
    assert "built-in default similarity" in proc.stdout
