"""The fitted predictor registers beside the paper's and maps its density as documented."""

from __future__ import annotations

import pytest

from qidf_ctl import predict, predictors_fitted


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
