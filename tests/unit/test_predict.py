"""Predictors by name: the paper's formula, its clipping and reason line, the record stored by
``apply --q auto``, and ``qidf predict`` (with and without a query sample) against a fake
engine."""

from __future__ import annotations

import dataclasses
import json

import pytest

from qidf_ctl import predictors as predict
from qidf_ctl import stats
from qidf_ctl.errors import QidfError, UsageError

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
    assert p.reason.startswith(f"hapax token share {h:.3f} -> q {q:.2f}") and words in p.reason
    assert p.predictor == "paper" and not p.ambiguous
    assert p.evidence == {"tokens": {
        "value": h, "name": "hapax token share",
        "definition": "share of token occurrences whose term has df = 1"}}


def test_q_stays_in_the_documented_range():
    for h in (0.0, 0.03, 0.1, 0.13, 0.5, 1.0):
        assert predict.Q_MIN <= predict.predict(_field(h), "paper").q <= predict.Q_MAX


def test_registry_takes_a_new_predictor_by_name():
    def decide(f: stats.FieldStats, queries: object) -> predict.Decision:
        return predict.Decision(1.5 - f.densities["vocab"], "unit test")

    predict.register(predict.Predictor(name="test-vocab", formula="q = 1.5 - h_vocab",
                                       source="unit test", decide=decide))
    try:
        p = predict.predict(_field(0.1), predictor="test-vocab")
        assert (p.q, p.reason, p.evidence) == (0.9, "unit test", {})
    finally:
        del predict.PREDICTORS["test-vocab"]


def test_unknown_names_are_refused():
    with pytest.raises(UsageError, match="unknown predictor 'nope'"):
        predict.get("nope")


def test_no_tokens_no_prediction():
    with pytest.raises(QidfError, match="has no tokens"):
        predict.predict(_field(float("nan")), "paper")


def test_record_is_json_and_keeps_the_statistics():
    p = predict.predict(_field(0.05), "paper", index=INDEX)
    record = json.loads(json.dumps(p.record()))["prediction"]
    assert record["q"] == 0.64
    assert record["formula"] == "q = 1 - 7.28 * h_tok (h_tok: hapax token share)"
    assert record["evidence"]["tokens"]["value"] == 0.05 and record["range"] == [0.05, 1.0]
    assert record["ambiguous"] is False and record["queries"] is None
    assert record["statistics"]["densities"]["vocab"] == 0.6
    assert record["statistics"]["documents"] == 10 and "measured_at" in record


def test_predict_for_index_measures_the_only_text_field():
    messages: list[str] = []
    p = predict.predict_for_index(fake(StatsEngine(SMALL)), "code-alias", predictor="paper",
                                  progress=messages.append)
    assert (p.index, p.field) == (INDEX, "text")
    assert p.evidence["tokens"]["value"] == pytest.approx(5 / 8)
    assert p.q == 0.05 and p.clipped
    # progress only: the reason is the result, which the caller prints (once)
    assert messages == ["measuring code-alias field text"]


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
    assert lines[0] == f"{INDEX}, field text: q = 0.05 (predictor paper; 3 documents, exact)"
    assert lines[1].startswith("why: hapax token share 0.625 -> q 0.05 (formula gives")
    assert "evidence:" in lines
    # a share is a percentage, as the reasons write them; its definition once, by key
    assert "  hapax token share: 62.5%" in lines
    assert "    tokens: share of token occurrences whose term has df = 1" in lines
    assert any(line.startswith("rule: q = 1 - 7.28 * h_tok") for line in lines)
    assert lines[-1] == f"to use it: qidf apply {INDEX} --q 0.05"
    assert max(len(line) for line in lines) <= 80  # no 202-character line any more


def test_predict_cli_json(capsys, monkeypatch):
    code, out, _ = run(["predict", INDEX, "--json", "--predictor", "paper"], capsys, monkeypatch,
                       StatsEngine(SMALL))
    payload = json.loads(out)
    assert code == 0 and payload["q"] == 0.05 and payload["statistics"]["mode"] == "exact"


def test_predict_cli_unknown_predictor_before_any_cluster_call(capsys, monkeypatch):
    engine = StatsEngine(SMALL)
    code, out, err = run(["predict", INDEX, "--predictor", "nope"], capsys, monkeypatch, engine)
    assert code == 2 and out == "" and err.count("\n") == 1 and engine.calls == []


def test_default_predictor_reads_the_content():
    """qidf-content (benchmarks/retrieval/predictor.md): the whitespace fake's documents are
    words, no query sample: a text field, BM25, and the reason says a sample would decide."""
    p = predict.predict_for_index(fake(StatsEngine(SMALL)), INDEX)
    assert p.predictor == "qidf-content" == predict.DEFAULT_PREDICTOR
    assert p.q == 1.0 and p.ambiguous and "--queries FILE would decide" in p.reason
    assert p.evidence["code_like_documents"]["value"] == 0.0
    assert p.statistics["source_shape"]["texts"] == 4  # d4 has no text field; d5 is ""


def test_default_keeps_bm25_when_the_analyzer_splits_identifiers():
    """The probe's answer reaches the prediction, its reason and the recorded statistics."""
    for splits in (False, True):
        p = predict.predict_for_index(fake(StatsEngine(SMALL, splits_identifiers=splits)), INDEX)
        styles = p.statistics["splits_identifiers"]
        assert styles == (["camelCase", "snake_case"] if splits else [])
        assert p.q == 1.0
        assert ("splits identifiers (camelCase, snake_case)" in p.reason) is splits


CODE = {f"d{i}": {"text": f"func f{i}(a int) {{ return a[{i}] + g(a); }}"} for i in range(6)}


@pytest.mark.parametrize("queries, q, words", [
    ("q1\tfunc f(a int) { return g(a); }\nq2\tx := y[0]; z(x)\n", 0.7, "text searched with code"),
    ("q1\tadd file contents to the index\nq2\tlist directory contents\n", 1.0,
     "text searched with text"),
])
def test_predict_cli_reads_a_query_sample(tmp_path, capsys, monkeypatch, queries, q, words):
    from qidf_ctl.predictors import content

    path = tmp_path / "queries.tsv"
    path.write_text(queries)
    code, out, _ = run(["predict", INDEX, "--queries", str(path), "--json"], capsys,
                       monkeypatch, StatsEngine(SMALL))
    payload = json.loads(out)
    expected = content.Q_CODE_QUERIES if q < 1 else 1.0
    assert code == 0 and payload["q"] == expected and words in payload["reason"]
    assert payload["queries"]["queries_in_file"] == 2 and not payload["ambiguous"]
    assert payload["evidence"]["code_like_queries"]["value"] == (1.0 if q < 1 else 0.0)


def test_predict_cli_code_field_needs_no_queries(capsys, monkeypatch):
    from qidf_ctl.predictors import content

    code, out, _ = run(["predict", INDEX], capsys, monkeypatch, StatsEngine(CODE))
    assert code == 0
    assert out.startswith(f"{INDEX}, field text: q = {content.Q_CODE_CORPUS:.2f}")
    assert "why: 100% of 6 sampled documents look like code" in out


def test_predict_output_says_a_query_sample_that_did_not_decide(capsys):
    """A decision whose evidence holds no query statistic did not use the sample it was
    given: the output says so (the rule that decides is the predictor's business)."""
    from qidf_ctl.cli import stats as cli_stats
    from qidf_ctl.predictors import Prediction

    p = Prediction(q=0.6, q_formula=0.6, predictor="qidf-content", formula="q = 0.6 ...",
                   reason="99% of 1,000 sampled documents look like code -> q 0.60",
                   ambiguous=False,
                   evidence={"code_like_documents": {"value": 0.99, "name": "share of texts "
                             "that look like code (documents, 1,000 sampled)",
                                                     "definition": "code punctuation"}},
                   index="code", field="text", queries={"source": "q.tsv", "queries": 1},
                   statistics={"documents": 1000, "mode": "exact"})
    cli_stats._print_prediction(p)
    flat = " ".join(capsys.readouterr().out.split())
    assert "documents, 1,000 sampled): 99.0%" in flat
    assert "the query sample (q.tsv) was read but did not decide" in flat
    used = dataclasses.replace(p, evidence={**p.evidence, "code_like_queries": {
        "value": 1.0, "name": "queries", "definition": "code punctuation"}})
    cli_stats._print_prediction(used)
    assert "did not decide" not in capsys.readouterr().out


def test_predict_cli_a_missing_query_file_is_one_line(tmp_path, capsys, monkeypatch):
    engine = StatsEngine(SMALL)
    code, out, err = run(["predict", INDEX, "--queries", str(tmp_path / "nope.jsonl")],
                         capsys, monkeypatch, engine)
    assert code == 5 and out == "" and err.count("\n") == 1 and "not found" in err
    assert engine.calls == []  # checked before any cluster call


def test_apply_reads_queries_only_with_q_auto(tmp_path, capsys, monkeypatch):
    path = tmp_path / "q.tsv"
    path.write_text("q1\tfind the value\n")
    engine = StatsEngine(SMALL)
    code, out, err = run(["apply", INDEX, "--q", "0.3", "--queries", str(path)], capsys,
                         monkeypatch, engine)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--queries is read only with --q auto" in err and engine.calls == []
