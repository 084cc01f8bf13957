"""Rendered settings: exact numbers in the scripts, the engine-dependent (k1 + 1) factor, and
recognising what is installed."""

from __future__ import annotations

import pytest

from qidf_ctl.formula import InvalidParameter
from qidf_ctl.similarity import Mode, QlogParams, flatten, parse, render


def _sim(params, mode=Mode.SCRIPT, legacy=True):
    return render(params, mode, legacy)["index"]["similarity"]["default"]


def test_script_bakes_validated_literals():
    sim = _sim(QlogParams(0.3, k1=1.5, b=0.6))
    weight = sim["weight_script"]["source"]
    assert "Math.expm1(0.7 * Math.log(1.0 + (N - n + 0.5) / (n + 0.5))) / 0.7" in weight
    assert weight.endswith("return query.boost * idf * 2.5;")
    assert "1.5 * ((1.0 - 0.6) + 0.6 * doc.length / avgdl)" in sim["script"]["source"]


def test_q_one_uses_plain_log():
    weight = _sim(QlogParams(1.0))["weight_script"]["source"]
    assert "Math.log(1.0 + (N - n + 0.5) / (n + 0.5));" in weight
    assert "expm1" not in weight


def test_opensearch3_has_no_legacy_factor():
    weight = _sim(QlogParams(0.5), legacy=False)["weight_script"]["source"]
    assert weight.endswith("return query.boost * idf;")


def test_rsj_form_is_floored():
    weight = _sim(QlogParams(0.5, form="rsj"))["weight_script"]["source"]
    assert "Math.max(0.0, Math.expm1(0.5 * Math.log(odds)) / 0.5)" in weight


def test_plugin_settings():
    assert _sim(QlogParams(0.25), Mode.PLUGIN) == {
        "type": "qlog_bm25", "q": 0.25, "k1": 1.2, "b": 0.75, "form": "lucene"}


@pytest.mark.parametrize("kwargs", [{"q": "1; System.exit(0)"}, {"q": 0.5, "k1": -1},
                                    {"q": 0.5, "b": 1.5}, {"q": 0.5, "k1": float("nan")},
                                    {"q": 0.5, "form": "bm25"}])
def test_bad_parameters_never_reach_a_script(kwargs):
    with pytest.raises(InvalidParameter):
        QlogParams(**kwargs)


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("legacy", [True, False])
def test_parse_round_trips(mode, legacy):
    params = QlogParams(0.37, k1=0.9, b=0.4, form="rsj")
    sim = _sim(params, mode, legacy)
    as_engine_returns = {k: str(v) for k, v in flatten(sim).items()}  # engines return strings
    nested: dict = {}
    for key, value in as_engine_returns.items():
        node = nested
        *head, last = key.split(".")
        for part in head:
            node = node.setdefault(part, {})
        node[last] = value
    installed = parse(nested)
    assert installed.kind == "qlog" and installed.mode is mode and installed.params == params


def test_parse_builtin_and_foreign():
    assert parse(None).kind == "builtin"
    assert parse({"type": "BM25"}).kind == "builtin"
    assert parse({"type": "BM25", "k1": "2"}).describe() == "built-in BM25 with k1=2"
    assert parse({"type": "DFR", "basic_model": "g"}).kind == "other"
    edited = _sim(QlogParams(0.3))
    edited["script"]["source"] += " // hand edit"
    assert parse(edited).kind == "other"
