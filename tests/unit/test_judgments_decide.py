"""The decision from judgments, its pieces that need no engine: the coarse-to-fine grid, the
rescaling for an index with q-log installed, the record ``show``/``plan``/``check`` read,
the qidf.toml key, and the options of ``apply``/``predict`` refused before any connection."""

from __future__ import annotations

import math

import pytest

from qidf_ctl.desired.load import parse
from qidf_ctl.errors import UsageError
from qidf_ctl.evaluation.sweep import DEFAULT_GRID
from qidf_ctl.formula import IdfForm, idf
from qidf_ctl.judgments.decide import (
    PREDICTOR,
    JudgedDecision,
    Report,
    _rescaled,
    describe_record,
    neighbours,
)
from qidf_ctl.querytime.statistics import TermStats
from qidf_ctl.similarity import QlogParams
from tests.unit.test_cli import run


def test_neighbours_on_sweeps_grid():
    assert neighbours(0.7) == [0.6, 0.8]
    assert neighbours(0.3) == [0.25, 0.4]
    assert neighbours(0.05) == [0.1]
    assert neighbours(1.5) == [1.4]
    assert neighbours(0.62) == [0.6, 0.7]  # a reference off the grid
    assert set(neighbours(0.1)) <= set(DEFAULT_GRID)


def test_boosts_for_an_index_with_qlog_installed_are_rescaled_from_its_idf():
    stats = TermStats(1000, {"rare": 1, "common": 400})
    bodies = {"q1": {"bool": {"should": [
        {"term": {"text": {"value": "rare", "boost": 2.0}}},
        {"term": {"text": {"value": "common", "boost": 1.0}}},
        {"term": {"text": {"value": "unseen", "boost": 1.0}}}]}}}
    installed = QlogParams(0.3)
    out = _rescaled(bodies, stats, "text", installed)
    clauses = {c["term"]["text"]["value"]: c["term"]["text"]["boost"]
               for c in out["q1"]["bool"]["should"]}
    for term, before in (("rare", 2.0), ("common", 1.0)):
        n = stats.of(term)
        expected = before * idf(1.0, 1000, n, IdfForm.LUCENE) / idf(0.3, 1000, n,
                                                                    IdfForm.LUCENE)
        assert math.isclose(clauses[term], expected, rel_tol=1e-12)
    assert clauses["unseen"] == 1.0


def _decision(**kw) -> JudgedDecision:
    base = dict(q=0.6, reason="judgments (git, 500 older queries): q 0.6", index="code",
                field="text", judgments={"source": "git", "origin": "git /r", "queries": 900,
                                         "judgments": 1200, "split": {
                                             "older_queries": 450, "newer_queries": 450,
                                             "by": "commit time"}},
                reference_q=0.5, reference="--q auto without judgments, qidf-content",
                tested_q=0.6, doubt=0.02, measure="nDCG@10", grid=[0.1, 0.5, 0.6, 1.0],
                older_queries=450,
                older_available=450, mean_ndcg10={"0.6": 0.3},
                report=Report(450, 0.31, 0.29, 0.02, 0.01, 0.02), seconds=3.0)
    return JudgedDecision(**{**base, **kw})


def test_the_record_is_shaped_like_a_prediction_and_reads_back_on_one_line():
    record = _decision().record()["prediction"]
    assert record["predictor"] == PREDICTOR and record["q"] == 0.6
    assert record["judgments"]["queries"] == 900 and record["report"]["queries"] == 450
    line = describe_record(record)
    assert line is not None
    assert "from judgments: git" in line and "split by commit time" in line
    assert "450 older chose it against q 0.5" in line and "vs BM25 0.2900" in line
    assert describe_record({"predictor": "qidf-content", "q": 0.6}) is None
    assert "no newer queries" in _decision(report=None).report_line()


def test_qidf_toml_judgments_key(tmp_path):
    text = """
[[target]]
index = "code"
q = "auto"
predictor = "qidf-content"
judgments = "judged/cargo"

[[target]]
index = "logs"
q = "auto"
predictor = "qidf-content"
judgments = "ubi:"
"""
    state = parse(text, "qidf.toml", tmp_path)
    assert state.targets[0].similarity.judgments == str((tmp_path / "judged/cargo").resolve())
    assert state.targets[1].similarity.judgments == "ubi:"
    assert "judgments=" in state.targets[0].similarity.describe()
    with pytest.raises(UsageError, match="judgments is read only with q"):
        parse('[[target]]\nindex = "code"\nq = 0.3\njudgments = "j"\n', "qidf.toml", tmp_path)
    defaults = parse('[defaults]\njudgments = "j"\n\n[[target]]\nindex = "a"\nq = 0.3\n\n'
                     '[[target]]\nindex = "b"\nq = "auto"\npredictor = "qidf-content"\n',
                     "qidf.toml", tmp_path)
    assert defaults.targets[0].similarity.judgments is None  # a default serves auto only
    assert defaults.targets[1].similarity.judgments == str((tmp_path / "j").resolve())


@pytest.mark.parametrize(("args", "words"), [
    (["apply", "idx", "--q", "0.3", "--judgments", "j"], "read only with --q auto"),
    (["apply", "idx", "--q", "auto", "--judgments", "j", "--queries", "q.jsonl"],
     "with --judgments your judgments decide"),
    (["apply", "idx", "--q", "auto", "--judgments", "/nonexistent/j"], "no such file"),
    (["predict", "idx", "--judgments", "/nonexistent/j"], "no such file"),
    (["predict", "idx", "--judgments", "j", "--queries-are", "code"],
     "with --judgments your judgments decide"),
])
def test_judgments_options_are_refused_before_connecting(args, words, capsys, monkeypatch,
                                                         tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "judgments.json").write_text("{}")
    code, _, err = run([*args, "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2, err
    assert words in err and err.count("\n") == 1


def test_a_folder_with_a_foreign_manifest_is_refused(tmp_path, capsys, monkeypatch):
    (tmp_path / "judgments.json").write_text('{"format": 99}')
    code, _, err = run(["predict", "idx", "--judgments", str(tmp_path), "--url",
                        "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 2 and "not a judgments manifest" in err
