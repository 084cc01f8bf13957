"""Predictors by name: the paper's formula, its clipping and reason line, the record stored by
``apply --q auto``, and ``qidf predict`` against a fake engine."""

from __future__ import annotations

import json

import pytest

from qidf_ctl import predictors as predict
from qidf_ctl import stats
from qidf_ctl.errors import QidfError, UsageError
from qidf_ctl.predictors import gate as predictors_fitted

from .test_stats import INDEX, SMALL, StatsEngine, fake, run


def _field(h_tok: float) -> stats.FieldStats:
    return stats.FieldStats(
        field="text", mode="exact", documents=10, vocabulary=20, total_tokens=100,
        avg_field_length=10.0, df_histogram=[], documents_without_tokens=0,
        densities={"tokens": h_tok, "vocab": 0.6, "types_per_token": 0.1, "doc_mean": 0.2},
    )


@pytest.mark.parametrize("h, q, clipped, words", [
    (0.0, 1.0, False, "close to 1: BM25 is already right here"),
    (0.01, 0.93, False, "close to 1"),
    (0.05, 0.64, False, "some identifier-heavy material"),
    (0.12, 0.13, False, "identifier-heavy corpus"),
    (0.2, 0.05, True, "formula gives -0.46, clipped to [0.05, 1]"),
])
def test_paper_predictor(h, q, clipped, words):
    p = predict.predict(_field(h), "paper", index=INDEX)
    assert p.q == q and p.clipped is clipped
    assert p.q_formula == pytest.approx(1 - 7.28 * h)
    assert p.reason.startswith(f"hapax density {h:.3f} -> q {q:.2f}") and words in p.reason
    assert (p.predictor, p.density, p.h_tok) == ("paper", "tokens", h)


def test_q_stays_in_the_documented_range():
    for h in (0.0, 0.03, 0.1, 0.13, 0.5, 1.0):
        assert predict.Q_MIN <= predict.predict(_field(h), "paper").q <= predict.Q_MAX


def test_registry_takes_a_new_predictor_by_name():
    predict.register(predict.Predictor(
        name="test-vocab", density="vocab", formula="q = 1.5 - h_vocab",
        q_of=lambda h: 1.5 - h, source="unit test"))
    try:
        p = predict.predict(_field(0.1), predictor="test-vocab")
        assert (p.density, p.h_tok, p.q) == ("vocab", 0.6, 0.9)
    finally:
        del predict.PREDICTORS["test-vocab"]


def test_unknown_names_are_refused():
    with pytest.raises(UsageError, match="unknown predictor 'nope'"):
        predict.get("nope")
    with pytest.raises(ValueError, match="unknown density"):
        predict.register(predict.Predictor("bad", "entropy", "", lambda h: h, ""))


def test_no_tokens_no_prediction():
    with pytest.raises(QidfError, match="has no tokens"):
        predict.predict(_field(float("nan")), "paper")


def test_record_is_json_and_keeps_the_statistics():
    p = predict.predict(_field(0.05), "paper", index=INDEX)
    record = json.loads(json.dumps(p.record()))["prediction"]
    assert record["q"] == 0.64 and record["formula"] == "q = 1 - 7.28 * h_tok"
    assert record["density"] == "tokens" and record["range"] == [0.05, 1.0]
    assert record["statistics"]["densities"]["vocab"] == 0.6
    assert record["statistics"]["documents"] == 10 and "measured_at" in record


def test_predict_for_index_measures_the_only_text_field():
    messages: list[str] = []
    p = predict.predict_for_index(fake(StatsEngine(SMALL)), "code-alias", predictor="paper",
                                  progress=messages.append)
    assert (p.index, p.field, p.h_tok) == (INDEX, "text", pytest.approx(5 / 8))
    assert p.q == 0.05 and p.clipped
    assert messages == ["measuring the hapax density of code-alias field text", p.reason]


def test_several_text_fields_need_a_choice():
    mapping = {"properties": {"text": {"type": "text"}, "title": {"type": "text"}}}
    engine = StatsEngine(SMALL, mapping=mapping)
    with pytest.raises(QidfError, match=r"several text fields \(text, title\)"):
        predict.predict_for_index(fake(engine), INDEX)
    assert not any(p.endswith("_mtermvectors") for _, p, _, _ in engine.calls)
    assert predict.predict_for_index(fake(engine), INDEX, field="text").field == "text"


def test_predict_cli_prints_q_reason_and_statistics(capsys, monkeypatch):
    code, out, _ = run(["predict", INDEX, "--predictor", "paper"], capsys, monkeypatch,
                       StatsEngine(SMALL))
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("q = 0.05   hapax density 0.625 -> q 0.05 (formula gives")
    assert "share of token occurrences whose term has df = 1 = 0.6250" in lines[1]
    assert lines[2] == f"to use it: qidf apply {INDEX} --q 0.05"


def test_predict_cli_json(capsys, monkeypatch):
    code, out, _ = run(["predict", INDEX, "--json", "--predictor", "paper"], capsys, monkeypatch,
                       StatsEngine(SMALL))
    payload = json.loads(out)
    assert code == 0 and payload["q"] == 0.05 and payload["statistics"]["mode"] == "exact"


def test_predict_cli_unknown_predictor_before_any_cluster_call(capsys, monkeypatch):
    engine = StatsEngine(SMALL)
    code, out, err = run(["predict", INDEX, "--predictor", "nope"], capsys, monkeypatch, engine)
    assert code == 2 and out == "" and err.count("\n") == 1 and engine.calls == []


def test_default_predictor_is_the_gate():
    """qidf-gate (benchmarks/retrieval/predictor.md): BM25 for a small, low-density field."""
    p = predict.predict(_field(0.05), index=INDEX)
    assert p.predictor == "qidf-gate" and p.density == "types_per_token"
    assert p.q in (predictors_fitted.GATE_Q, 1.0)


def test_gate_keeps_bm25_when_the_analyzer_splits_identifiers(capsys, monkeypatch):
    """The probe's answer reaches the prediction, its reason and the recorded statistics."""
    for splits, q in ((False, None), (True, 1.0)):
        p = predict.predict_for_index(fake(StatsEngine(SMALL, splits_identifiers=splits)), INDEX)
        styles = p.statistics["splits_identifiers"]
        assert styles == (["camelCase", "snake_case"] if splits else [])
        if q is not None:
            assert p.q == q and "splits identifiers (camelCase, snake_case)" in p.reason
        else:
            assert "splits" not in p.reason
