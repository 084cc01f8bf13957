"""The Python formula against the shared high-precision vectors (the Java tests read the same
file), plus the properties the engines rely on."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from qidf_ctl.formula import IdfForm, InvalidParameter, idf, ln_q, validate_q

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "qlog_idf.json").read_text()
)["vectors"]


def test_vectors_file_covers_both_forms_and_q_near_one():
    assert len(VECTORS) > 500
    assert {v["form"] for v in VECTORS} == {"lucene", "rsj"}
    assert any(0 < abs(v["q"] - 1) < 1e-9 for v in VECTORS)


@pytest.mark.parametrize("vec", VECTORS, ids=lambda v: f"{v['form']}-q{v['q']}-N{v['N']}-n{v['n']}")
def test_idf_matches_vectors(vec):
    got = idf(vec["q"], vec["N"], vec["n"], vec["form"])
    assert math.isclose(got, vec["idf"], rel_tol=1e-12, abs_tol=1e-15), (got, vec["idf_text"])


def test_q_one_is_lucene_bm25_idf():
    for n_docs, df in [(10, 1), (1000, 37), (182440, 90000)]:
        lucene = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        assert idf(1.0, n_docs, df) == lucene


def test_continuous_across_q_equals_one():
    below, at, above = (ln_q(123.0, q) for q in (1 - 1e-12, 1.0, 1 + 1e-12))
    assert abs(below - at) < 1e-9 and abs(above - at) < 1e-9


def test_lower_q_amplifies_rare_terms():
    ratios = [idf(q, 100_000, 1) / idf(q, 100_000, 50) for q in (1.0, 0.7, 0.3, 0.05)]
    assert ratios == sorted(ratios) and ratios[-1] > 10 * ratios[0]


def test_rsj_is_floored_at_zero_for_common_terms():
    assert idf(1.0, 1000, 900, IdfForm.RSJ) == 0.0
    assert idf(0.3, 1000, 10, IdfForm.RSJ) > 0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.01, 2.01, "abc", None, "1e400"])
def test_validate_q_refuses(bad):
    with pytest.raises(InvalidParameter, match=r"q must be"):
        validate_q(bad)


@pytest.mark.parametrize("good", [0, 0.0, "0.3", 1, 2.0])
def test_validate_q_accepts(good):
    assert validate_q(good) == float(good)


def test_unknown_form_is_refused():
    with pytest.raises(ValueError):
        idf(0.5, 10, 1, "bm25")
