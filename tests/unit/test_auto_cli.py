"""`qidf apply --q auto`, `predict` and `check` end to end on fakes: the statistics read from
one fake (test_stats.StatsEngine), the index and qidf's state from the other
(fake_cluster.FakeEngine). A q = 1 decision sends nothing that changes anything and prints
one line; `--queries-are` is validated before any request and recorded with the decision."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from qidf_ctl import cli
from qidf_ctl.cluster import Cluster
from qidf_ctl.install import settle
from qidf_ctl.predictors import content

from .fake_cluster import FakeEngine
from .test_stats import SMALL, fake

STATS_APIS = {"_stats", "_count", "_search", "_mtermvectors", "_termvectors", "_analyze"}


def _reads(method: str, path: str) -> bool:
    """GET, a POST that only sends a query body, or a scroll page read or freed."""
    parts = path.strip("/").split("/")
    return method == "GET" or parts[0] == "_search" or (
        method == "POST" and len(parts) > 1 and parts[1] in STATS_APIS)


class Both:
    """One transport: statistics from a StatsEngine, the index and qidf-state from a
    FakeEngine (the same index "code", a text field "text")."""

    def __init__(self, docs: dict[str, dict[str, Any]] = SMALL) -> None:
        from .test_stats import StatsEngine

        self.stats = StatsEngine(docs)
        self.index = FakeEngine(mapping={"properties": {"text": {"type": "text"},
                                                        "kw": {"type": "keyword"}}})
        self.index.cluster_settings["defaults"]["search.max_buckets"] = "7"
        self.calls: list[tuple[str, str]] = []

    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        bare = path.split("?")[0]
        self.calls.append((method, bare))
        parts = bare.strip("/").split("/")
        if parts[0] == "_search" or (parts[0] == "code" and len(parts) > 1
                                     and parts[1] in STATS_APIS):
            return self.stats(method, path, body, params)
        return self.index(method, path, body, params)

    def changes(self) -> list[tuple[str, str]]:
        """Every request that is not a read."""
        return [(m, p) for m, p in self.calls if not _reads(m, p)]


@pytest.fixture(autouse=True)
def _no_retry_sleep(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)


def run(argv: list[str], capsys, monkeypatch, both: Both | None = None):
    if both is not None:
        monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, s: fake(both)))  # type: ignore[arg-type]
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize("extra", [[], ["--dry-run"], ["--strategy", "clone"],
                                   ["--queries-are", "text"]])
def test_apply_auto_deciding_1_changes_nothing_and_says_so_in_one_line(extra, capsys,
                                                                       monkeypatch):
    both = Both()
    before = (dict(both.index.settings), json.dumps(both.index.mapping))
    code, out, _ = run(["apply", "code", "--q", "auto", *extra], capsys, monkeypatch, both)
    assert code == 0 and both.changes() == []
    assert (dict(both.index.settings), json.dumps(both.index.mapping)) == before
    assert "qidf-state" not in both.index.indices
    assert ("GET", "/_nodes/plugins") not in both.calls  # nothing to install: no mode asked
    (line,) = out.splitlines()
    assert line.startswith("code: nothing to do: q auto: 0% of 4 sampled documents look like "
                           "code: a text field")
    assert line.endswith("the index keeps its built-in default similarity (BM25), which qidf "
                         "never changed")
    stated = "--queries-are" in extra
    assert ("ambiguous" in line) is not stated and ("queries stated to be text" in line) is stated


def test_apply_auto_deciding_1_json_carries_the_decision(capsys, monkeypatch):
    both = Both()
    code, out, _ = run(["apply", "code", "--q", "auto", "--json"], capsys, monkeypatch, both)
    payload = json.loads(out)
    assert code == 0 and both.changes() == []
    assert (payload["action"], payload["changed"]) == ("none", False)
    decision = payload["decision"]
    assert decision["q"] == 1.0 and decision["ambiguous"] is True
    assert decision["evidence"]["code_like_documents"]["value"] == 0.0
    assert decision["predictor"] == "qidf-content" and "statistics" not in decision
    assert decision["reason"] in payload["message"]


def test_apply_auto_deciding_1_reverts_what_qidf_installed(capsys, monkeypatch):
    both = Both()
    code, _, _ = run(["apply", "code", "--q", "0.3", "--mode", "script"], capsys, monkeypatch,
                     both)
    assert code == 0 and both.index.similarity("code")
    both.calls.clear()
    code, out, _ = run(["apply", "code", "--q", "auto", "--json"], capsys, monkeypatch, both)
    payload = json.loads(out)
    assert code == 0 and payload["action"] == "revert" and payload["changed"]
    assert "as `qidf revert` does" in payload["message"] and payload["decision"]["q"] == 1.0
    assert both.index.similarity("code") == {} and both.index.mapping["_meta"] == {}
    assert [w for w in both.changes() if not w[1].startswith(("/qidf-state", "/_cluster"))] \
        == [("POST", "/code/_close"), ("PUT", "/code/_settings"), ("POST", "/code/_open"),
            ("PUT", "/code/_mapping")]


def test_apply_auto_with_queries_are_code_installs_and_records_it(capsys, monkeypatch):
    both = Both()
    code, out, err = run(["apply", "code", "--q", "auto", "--queries-are", "code", "--mode",
                          "script"], capsys, monkeypatch, both)
    assert code == 0
    assert f"q auto: 0% of 4 sampled documents look like code: a text field, queries stated " \
           f"to be code (--queries-are code, no query sample): text searched with code -> q " \
           f"{content.Q_CODE_QUERIES:.2f}" in err
    assert out.startswith("code: installed q-log BM25")
    prediction = both.index.mapping["_meta"]["qidf"]["installed"]["prediction"]
    assert (prediction["q"], prediction["query_kind"], prediction["query_kind_use"]) == (
        content.Q_CODE_QUERIES, "code", "decided")
    assert prediction["ambiguous"] is False


def test_explicit_q_1_installs_as_given_and_says_how_to_go_back(capsys, monkeypatch):
    both = Both()
    code, _, err = run(["apply", "code", "--q", "1", "--mode", "script"], capsys, monkeypatch,
                       both)
    assert code == 0 and both.index.similarity("code")["type"] == "scripted"
    assert "note: --q 1 installs q-log at q = 1" in err and "qidf revert code" in err


@pytest.mark.parametrize("argv, words", [
    (["apply", "code", "--q", "0.3", "--queries-are", "code"],
     "--queries-are is read only with --q auto"),
    (["apply", "-f", "qidf.toml", "--queries-are", "code"],
     "--queries-are is read only with one index and --q auto"),
    (["apply", "code", "--q", "auto", "--queries-are", "sql"], "'sql' is not one of"),
    (["predict", "code", "--queries-are", "prose"], "'prose' is not one of"),
    (["predict", "code", "--predictor", "paper", "--queries-are", "code"],
     "predictor paper does not read a stated query kind"),
    (["check", "--queries-are", "code"], "--queries-are is read only with INDEX and --q auto"),
    (["check", "code", "--q", "0.3", "--queries-are", "code"],
     'queries_are is read only with q = "auto"'),
])
def test_queries_are_bad_input_is_one_line_before_any_request(argv, words, capsys,
                                                               monkeypatch):
    both = Both()
    code, out, err = run(argv, capsys, monkeypatch, both)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
    assert both.calls == []


def test_queries_are_takes_any_case(capsys, monkeypatch):
    code, out, _ = run(["predict", "code", "--queries-are", "CODE", "--json"], capsys,
                       monkeypatch, Both())
    assert code == 0 and json.loads(out)["query_kind"] == "code"


@pytest.mark.parametrize("kind, q, ambiguous", [("code", content.Q_CODE_QUERIES, False),
                                                ("text", 1.0, False), (None, 1.0, True)])
def test_predict_with_queries_are(kind, q, ambiguous, capsys, monkeypatch):
    argv = ["predict", "code", *(["--queries-are", kind] if kind else [])]
    code, out, _ = run([*argv, "--json"], capsys, monkeypatch, Both())
    payload = json.loads(out)
    assert code == 0 and (payload["q"], payload["ambiguous"]) == (q, ambiguous)
    assert payload["query_kind"] == kind
    assert payload["query_kind_use"] == ("decided" if kind else None)
    code, out, _ = run(argv, capsys, monkeypatch, Both())
    last = out.splitlines()[-1]
    if q < 1:
        assert last == f"to use it: qidf apply code --q {q:.2f}"
    else:
        assert "\nBM25 stays: nothing to install" in out


def test_predict_with_a_sample_that_contradicts_queries_are(tmp_path, capsys, monkeypatch):
    path = tmp_path / "q.tsv"
    path.write_text("q1\tadd file contents to the index\nq2\tlist directory contents\n")
    code, out, _ = run(["predict", "code", "--queries", str(path), "--queries-are", "code",
                        "--json"], capsys, monkeypatch, Both())
    payload = json.loads(out)
    assert code == 0 and payload["q"] == 1.0 and payload["query_kind_use"] == "contradicted"
    assert "--queries-are code contradicts the sample, and the sample decides" in \
        payload["reason"]


def test_check_one_index_in_sync_when_auto_decides_1(capsys, monkeypatch):
    both = Both()
    code, out, _ = run(["check", "code", "--q", "auto", "--predictor", "qidf-content"], capsys,
                       monkeypatch, both)
    assert code == 0 and both.changes() == []
    assert "q auto decided q = 1" in out and out.splitlines()[-1] == "in sync: 1 items checked"
    code, out, _ = run(["check", "code", "--q", "auto", "--predictor", "qidf-content",
                        "--queries-are", "code", "--json"], capsys, monkeypatch, both)
    report = json.loads(out)
    assert code == 3 and report["drift"][0]["reason"] == ("has built-in default similarity "
                                                         "(BM25), not q-log")
