"""The fitted predictors sit beside the paper's and map their statistics as documented."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from qidf_ctl import predict, predictors_fitted
from qidf_ctl.predictors_fitted import q_gate, size_adjusted


def test_registered_beside_the_paper():
    assert {"paper", "qidf-fit"} <= set(predict.PREDICTORS)
    fit = predict.get("qidf-fit")
    assert fit.density == "types_per_token" and fit is predictors_fitted.FITTED


@pytest.mark.parametrize(("h", "q"), [(0.0, 1.0), (0.0433, 1 - 13.24 * 0.0433), (0.2, -1.648)])
def test_formula_before_clipping(h, q):
    assert predict.get("qidf-fit").q_of(h) == pytest.approx(q)


def test_prose_like_density_stays_near_bm25():
    # man pages measured 0.0255 terms with df = 1 per token: q must stay >= 0.6 there
    assert predict.get("qidf-fit").q_of(0.0255) >= 0.6


def test_size_adjustment_is_neutral_at_the_reference_size():
    assert size_adjusted(0.03, 10_000) == pytest.approx(0.03)
    assert size_adjusted(0.03, 1_000) < 0.03 < size_adjusted(0.03, 100_000)


# (types_per_token, documents, q) measured on the benchmark corpora (results.json)
@pytest.mark.parametrize(("h", "n", "q"), [
    (0.0255, 994, 1.0),       # man pages (prose): BM25
    (0.0110, 41_465, 1.0),    # Java docstrings, identifier-aware analyzer: BM25
    (0.0119, 41_465, 1.0),    # Java docstrings, standard analyzer: gated too (see module)
    (0.0221, 8_754, 0.6),     # JavaScript docstrings
    (0.0433, 13_994, 0.6),    # Go docstrings
    (0.1444, 1_000, 0.6),     # 1,000 Go docstrings: size adjustment keeps them above the gate
    (0.0393, 134_290, 0.6),   # 134K Go docstrings
])
def test_gate_on_measured_corpora(h, n, q):
    assert q_gate(h, n) == q


def test_gated_predictor_reads_field_stats():
    stats = SimpleNamespace(densities={"types_per_token": 0.0221}, documents=8_754.0)
    assert predictors_fitted.GATED.q_of_stats(stats) == 0.6  # type: ignore[arg-type,misc]
    assert predict.PREDICTORS["qidf-gate"] is predictors_fitted.GATED
    assert predict.DEFAULT_PREDICTOR == "qidf-gate"
