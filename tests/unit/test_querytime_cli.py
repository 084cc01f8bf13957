"""``qidf search``: bad input is one line before any request; ``--json`` gives the request an
application can send, and the hits."""

from __future__ import annotations

import json

import pytest

from qidf_ctl.cluster import Cluster

from .test_cli import run
from .test_querytime import Fake, _analyze_answer, _cluster, _describable, _forbidden, _tv_answer


def _search_answer(body, params):
    return {"hits": {"hits": [
        {"_id": "go:Header.FileInfo", "_score": 808.1,
         "_source": {"text": "FileInfo returns an fs.FileInfo\nfor the Header."}},
        {"_id": "go:ReadDir", "_score": 310.5, "_source": {"text": "x" * 300}}]}}


@pytest.fixture
def fake(monkeypatch):
    answers = {**_describable(), ("POST", "/code/_analyze"): _analyze_answer,
               ("POST", "/code/_termvectors"): _tv_answer,
               ("POST", "/code/_search"): _search_answer}
    engine = Fake(answers)
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, settings: _cluster(engine)))
    return engine


@pytest.mark.parametrize(("argv", "message"), [
    (["--q", "nan"], "q must be"),
    (["--q", "0.3", "--size", "0"], "--size"),
    (["--q", "0.3", "--stats", "global"], "--stats"),
    (["--q", "0.3", "--form", "bm15"], "--form"),
    (["--q", "0.3", "--filter", "{not json"], "--filter must be a JSON query"),
    (["--q", "0.3", "--filter", "[1, 2]"], "--filter must be one JSON query"),
])
def test_bad_input_is_one_line_and_no_request(argv, message, fake, capsys, monkeypatch):
    code, out, err = run(["search", "code", "func main", *argv], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert fake.calls == []


def test_ranked_hits(fake, capsys, monkeypatch):
    code, out, err = run(["search", "code", "func Header", "--q", "0.3"], capsys, monkeypatch)
    assert code == 0, err
    flat = " ".join(out.split())
    assert "field text: q-log q=0.3 at query time over built-in" in flat
    assert "(statistics of shard 0, N = 500)" in flat
    lines = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert lines[0].split()[:3] == ["1", "808.1000", "go:Header.FileInfo"]
    assert "FileInfo returns an fs.FileInfo for the Header." in lines[0]
    assert lines[1].endswith("x" * 97 + "...")


def test_json_has_the_request_and_the_hits(fake, capsys, monkeypatch):
    code, out, _ = run(["search", "code", "func Header", "--q", "0.6", "--size", "2",
                        "--filter", '{"term": {"lang": "go"}}', "--json"], capsys, monkeypatch)
    assert code == 0
    data = json.loads(out)
    request = data["request"]
    assert request["method"] == "POST" and request["path"] == "/code/_search"
    body = request["body"]
    assert body["size"] == 2 and body["_source"] == ["text"]
    assert body["query"]["bool"]["filter"] == [{"term": {"lang": "go"}}]
    assert {c["term"]["text"]["value"] for c in body["query"]["bool"]["should"]} == {
        "func", "header"}
    # the request the command printed is the one it sent
    sent = [c for c in fake.calls if c[1] == "/code/_search"][-1]
    assert sent[2] == body and (sent[3] or {}) == request["params"]
    assert data["statistics"]["df"] == {"func": 3, "header": 3}
    assert [h["rank"] for h in data["hits"]] == [1, 2]


def test_auto_q_without_monitor_privileges_is_one_auth_line(monkeypatch, capsys):
    answers = {**_describable(), ("GET", "/code/_stats/docs"): _forbidden}
    engine = Fake(answers)
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, settings: _cluster(engine)))
    code, out, err = run(["search", "code", "func", "--q", "auto"], capsys, monkeypatch)
    assert code == 4 and out == ""
    assert err.count("\n") == 1 and "pass --q with a number" in err


@pytest.mark.parametrize("argv", [["--query-time"], ["--q", "0.3"],
                                  ["--query-time", "--q", "7"]])
def test_eval_query_time_needs_a_valid_q(argv, fake, capsys, monkeypatch, tmp_path):
    queries = tmp_path / "q.tsv"
    queries.write_text("a\tfunc main\n")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("a 0 d1 1\n")
    code, out, err = run(["eval", "code", "--queries", str(queries), "--qrels", str(qrels),
                          *argv], capsys, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert fake.calls == []
