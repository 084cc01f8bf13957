"""The request log: --verbose (one line per request on stderr) and --trace FILE (JSON lines)
show every request a command sends, through the one transport, redacted, with each HTTP
attempt of a retried request."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest

from qidf_ctl.cluster import Cluster, ConnectionSettings, EngineInfo, build
from qidf_ctl.cluster.redact import register_secret
from qidf_ctl.cluster.requestlog import RequestLog, shown_query
from qidf_ctl.cluster.transport import elasticsearch_client_transport, logged
from qidf_ctl.errors import ClusterError
from tests.support import netstubs

from .fake_cluster import FakeEngine
from .test_cli import run


@pytest.fixture
def engine(monkeypatch):
    """The fake cluster, connected the way the CLI connects: through the settings' log."""
    fake = FakeEngine()
    connected = []

    def connect(cls, settings):
        connected.append(settings)
        return Cluster(fake, EngineInfo("opensearch", "2.19.6"), "http://fake:9200",
                       request_log=settings.request_log)

    monkeypatch.setattr(Cluster, "connect", classmethod(connect))
    fake.connected = connected
    return fake


def _trace(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_trace_shows_every_request_apply_sends(engine, capsys, monkeypatch, tmp_path):
    trace = tmp_path / "trace.jsonl"
    code, _, err = run(["apply", "code", "--q", "0.3", "--trace", str(trace), "-v"], capsys,
                       monkeypatch)
    assert code == 0, err
    lines = _trace(trace)
    sent = [(m, p) for m, p, _ in engine.calls]
    assert len(sent) > 10  # validate, lease, journal, close, update, open, record, release
    assert [(line["method"], unquote(line["path"])) for line in lines] == sent
    assert all(line["ms"] >= 0 for line in lines)
    assert {line["status"] for line in lines} == {200, 404}  # qidf-state, journal: not yet
    assert all(("error" in line) == (line["status"] == 404) for line in lines)
    assert all(set(line) <= {"ts", "method", "path", "query", "status", "ms", "bytes",
                             "error", "attempt"} for line in lines)
    verbose = [line for line in err.splitlines() if line.startswith("request: ")]
    assert len(verbose) == len(sent)
    assert verbose[0].startswith(f"request: {sent[0][0]} ") and " -> 200, " in verbose[0]
    assert "cluster: http://" in err  # which cluster, first


def test_a_refusal_is_in_the_trace_with_its_status(engine, capsys, monkeypatch, tmp_path):
    trace = tmp_path / "t.jsonl"
    code, _, _ = run(["show", "nosuch", "--trace", str(trace)], capsys, monkeypatch)
    assert code == 5
    last = _trace(trace)[-1]
    assert last["status"] == 404 and last["error"] == "index_not_found_exception"


def test_the_trace_file_is_appended_and_checked_before_any_request(engine, capsys,
                                                                   monkeypatch, tmp_path):
    trace = tmp_path / "t.jsonl"
    for _ in range(2):
        assert run(["show", "code", "--trace", str(trace)], capsys, monkeypatch)[0] == 0
    assert len(_trace(trace)) == 2 * len(engine.calls) // 2
    engine.calls.clear()
    engine.connected.clear()
    for bad in (tmp_path / "no" / "such" / "t.jsonl", tmp_path):
        code, _, err = run(["apply", "code", "--q", "0.3", "--trace", str(bad)], capsys,
                           monkeypatch)
        assert code == 2 and err.startswith("error: --trace") and err.count("\n") == 1
    assert engine.calls == [] and engine.connected == []


def test_query_values_that_look_like_credentials_are_masked():
    assert shown_query({"filter_path": "a.b", "scroll_id": "DXF1", "api_key": "k",
                        "X-Amz-Signature": "ab", "expand_wildcards": ["open", "closed"],
                        "size": None}) == {"filter_path": "a.b", "scroll_id": "***",
                                          "api_key": "***", "X-Amz-Signature": "***",
                                          "expand_wildcards": "open,closed"}


def test_every_line_is_redacted(tmp_path):
    register_secret("qidf-unit-secret-42")
    lines: list[str] = []
    log = RequestLog.open(lines.append, str(tmp_path / "t"))
    assert log is not None

    def transport(method, path, body=None, params=None):
        raise ClusterError("refused qidf-unit-secret-42", status=401)

    with pytest.raises(ClusterError):
        logged(transport, log)("GET", "/idx-qidf-unit-secret-42/_search?q=qidf-unit-secret-42",
                               None, {"routing": "qidf-unit-secret-42"})
    log.close()
    written = "\n".join(lines) + (tmp_path / "t").read_text()
    assert "qidf-unit-secret-42" not in written and written.count("***") >= 4


def test_each_attempt_of_a_retried_request_is_a_line(capsys, monkeypatch, tmp_path):
    """Through the client qidf builds (opensearch-py): a server answering 503 is asked three
    times with --retries 2; the trace shows the three attempts, as the server counts them."""
    server = netstubs.Canned(503, b'{"error": "busy"}', "application/json")
    try:
        trace = tmp_path / "t.jsonl"
        code, _, err = run(["show", "idx", "--url", server.url, "--retries", "2", "--trace",
                            str(trace), "--verbose"], capsys, monkeypatch)
        hits = server.take()
    finally:
        server.shutdown()
    assert code == 7
    lines = _trace(trace)
    assert len(lines) == len(hits) == 3
    assert [(line["status"], line.get("attempt"), line["bytes"]) for line in lines] == [
        (503, 1, 17), (503, 2, 17), (503, 3, 17)]
    assert "[attempt 3]" in err


def test_an_elasticsearch_client_notes_its_attempts_too():
    server = netstubs.Canned(200, b'{"acknowledged":true}', "application/json")
    lines: list[str] = []
    try:
        settings = ConnectionSettings.from_options(url=server.url, retries=0)
        client = build.elasticsearch_client(settings)
        transport = logged(elasticsearch_client_transport(client, server.url),
                           RequestLog(lines.append))
        transport("PUT", "/idx/_settings", {"index": {}}, None)
    finally:
        server.shutdown()
    assert lines == [lines[0]] and lines[0].startswith("request: PUT /idx/_settings -> 200, ")
    assert lines[0].endswith(", 21 bytes")


def test_no_log_no_wrapper():
    def transport(method, path, body=None, params=None):
        return {}

    assert logged(transport, None) is transport
