"""The query-sample criteria (qpp_criteria): what counts as a unique top-1, V3's guard (the
product's sign test, tested in tests/unit/test_recommend.py), and which q a criterion curve
picks."""

from __future__ import annotations

import numpy as np
from qidf_research import qpp_criteria as qp


def test_a_top1_shared_by_two_queries_is_unique_for_neither() -> None:
    ids = np.array([[3, 1], [3, 2], [5, 1], [-1, -1]])
    assert qp.unique_top1(ids).tolist() == [False, False, True, False]
    assert qp.spread(ids, np.zeros_like(ids, dtype=float), ids, 10) == 0.25


def test_corroboration_needs_the_top1_in_bm25s_top10() -> None:
    ids = np.array([[7, 1], [8, 2]])
    bm25 = np.array([[1] * 9 + [7], [2] * 10])
    assert qp.corroborated_spread(ids, np.zeros((2, 2)), bm25, 10) == 0.5


def test_hubness_is_the_share_of_slots_the_most_frequent_documents_take() -> None:
    ids = np.array([[0, 1], [0, 2], [0, 3], [0, 4]])
    # 100 documents: the 1% most frequent is one document, in 4 of 8 slots
    assert qp.hubness(ids, np.zeros((4, 2)), ids, 100) == 0.5


def test_choose_takes_the_largest_q_within_tau_of_the_best(monkeypatch) -> None:
    grid = (0.3, 0.5, 0.7, 1.0)
    values = (0.70, 0.80, 0.795, 0.60)
    monkeypatch.setattr(qp, "curve", lambda *a, **k: (grid, values))
    assert qp.choose("any", "Q1 spread", 0.0) == 0.5
    assert qp.choose("any", "Q1 spread", 0.01) == 0.7
    lower = (0.40, 0.30, 0.31, 0.50)  # hubness: lower is better, tau relative
    monkeypatch.setattr(qp, "curve", lambda *a, **k: (grid, lower))
    assert qp.choose("any", "Q4 hubness", 0.0) == 0.5
    assert qp.choose("any", "Q4 hubness", 0.05) == 0.7


def test_significant_move_needs_the_sign_test_and_then_takes_the_highest_spread() -> None:
    n = 100
    level = np.zeros(n, dtype=bool)
    level[:30] = True
    noise = level.copy()
    noise[30:40] = True  # 10 : 0 discordant, p = 1/1024 < 0.005, spread 0.40
    clear = level.copy()
    clear[30:60] = True  # 30 : 0, spread 0.60
    weak = level.copy()
    weak[30:33] = True  # 3 : 0, p = 1/8: not significant
    unique = {0.7: level, 0.5: noise, 0.3: clear, 0.1: weak}
    assert qp.significant_move(unique, 0.7, [0.5, 0.3, 0.1]) == 0.3
    assert qp.significant_move(unique, 0.7, [0.1]) == 0.7
    assert qp.significant_move(unique, 0.7, []) == 0.7


def test_the_halves_split_every_query_once_the_same_way_each_time() -> None:
    from qidf_research.predictor_qpp_halves import halves

    a, b = halves(4243)
    assert len(a) == 2121 and len(b) == 2122
    assert sorted(a + b) == list(range(4243))
    assert halves(4243) == (a, b)
