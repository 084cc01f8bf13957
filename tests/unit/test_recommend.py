"""The sweep's recommended q: the best mean unless a paired bootstrap leaves doubt that it
beats the reference (the sign test and the one-standard-error rule, the guards compared with
it, still used by the research), and its one-line reason."""

from __future__ import annotations

import math

import pytest

from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.evaluation.recommend import (
    ALPHA,
    bootstrap_choice,
    doubt,
    guarded_choice,
    recommend,
    sign_test,
)


@pytest.mark.parametrize(("wins", "losses", "expected"), [
    (0, 0, 1.0),
    (1, 0, 0.5),
    (3, 0, 0.125),
    (2, 2, 11 / 16),
    (0, 5, 1.0),
])
def test_sign_test_is_the_exact_one_sided_binomial_tail(wins, losses, expected):
    assert math.isclose(sign_test(wins, losses), expected)


def test_the_sign_test_needs_a_real_majority():
    assert sign_test(60, 40) > ALPHA  # 60:40 of 100 is noise at 0.005
    assert sign_test(75, 25) < ALPHA


def _scores(base: float, n: int, changes: dict[int, float]) -> list[float]:
    values = [base] * n
    for i, v in changes.items():
        values[i] = v
    return values


def test_the_guard_moves_only_on_a_significant_majority_then_takes_the_best_mean():
    level = _scores(0.5, 100, {})
    clear = _scores(0.5, 100, {i: 0.9 for i in range(12)})  # 12 : 0, p = 1/4096
    clearer = _scores(0.5, 100, {i: 0.8 for i in range(30)})  # 30 : 0, higher mean
    noise = _scores(0.5, 100, {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.0, 4: 0.0})  # 3 : 2
    one_big_win = _scores(0.5, 100, {0: 50.0})  # the best mean, from one query
    assert guarded_choice({0.7: level, 0.5: clear, 0.3: clearer, 0.2: noise}, 0.7) == 0.3
    assert guarded_choice({0.7: level, 0.2: noise, 0.1: one_big_win}, 0.7) == 0.7
    assert guarded_choice({0.7: level}, 0.7) == 0.7


def test_a_move_says_how_many_queries_it_won_and_lost():
    per_query = {0.7: {f"q{i}": 0.5 for i in range(40)},
                 0.3: {f"q{i}": (0.9 if i < 20 else 0.5) for i in range(40)}}
    per_query[0.3]["q39"] = 0.1
    rec = recommend(per_query, 0.7, "--q auto")
    assert (rec.q, rec.tested_q, rec.wins, rec.losses) == (0.3, 0.3, 20, 1)
    assert rec.p_value == pytest.approx(sign_test(20, 1))
    assert rec.reason == ("install q 0.3: it has the best NDCG@10 on these 40 queries "
                          "(0.6900, against 0.5000 at q 0.7, --q auto), ahead in 100% of "
                          "1,000 bootstrap resamples of the queries (better on 20 queries, "
                          "worse on 1)")
    assert rec.doubt == 0.0
    assert "\n" not in rec.reason


def test_staying_names_the_best_rival_and_its_test():
    per_query = {1.0: {"a": 0.5, "b": 0.5, "c": 0.5},
                 0.5: {"a": 1.0, "b": 1.0, "c": 0.0}}
    rec = recommend(per_query, 1.0, "BM25")
    assert rec.q == 1.0 and rec.reference_q == 1.0
    assert (rec.tested_q, rec.wins, rec.losses, rec.p_value) == (0.5, 2, 1, 0.5)
    assert rec.reason.startswith("BM25 stays (q = 1): q 0.5 scored higher on these 3 "
                                 "queries (0.6667 against 0.5000) but not clearly: it is not "
                                 "ahead in")
    assert 0.10 < rec.doubt < 0.5


def test_where_bm25_measured_best_bm25_stays_in_plain_words():
    """The reference (--q auto) says 0.6, BM25 scores best but not beyond noise: the guard
    alone would keep 0.6; the recommendation keeps BM25 and says so."""
    per_query = {1.0: {"a": 0.6, "b": 0.5, "c": 0.5}, 0.6: {"a": 0.5, "b": 0.5, "c": 0.5}}
    rec = recommend(per_query, 0.6, "--q auto")
    assert bootstrap_choice({1.0: [0.6, 0.5, 0.5], 0.6: [0.5, 0.5, 0.5]}, 0.6)[0] == 0.6
    assert rec.q == 1.0 and rec.tested_q == 1.0
    assert rec.reason.startswith("BM25 stays (q = 1): it has the best NDCG@10 on these 3 "
                                 "queries (0.5333, against 0.5000 at q 0.6, --q auto)")
    assert "recommends q 0.6" not in rec.reason and "ahead in" not in rec.reason
    rec = recommend({0.7: {"a": 0.6}, 1.0: {"a": 0.5}}, 0.7, "--q auto")
    assert rec.reason == ("install q 0.7 (--q auto): it has the best NDCG@10 on these 1 "
                          "queries (0.6000)")


def test_a_query_missing_under_one_q_counts_as_zero():
    per_query = {1.0: {"a": 0.5, "b": 0.5}, 0.5: {"a": 0.5}}
    rec = recommend(per_query, 1.0, "BM25")
    assert (rec.tested_q, rec.wins, rec.losses) == (1.0, 0, 0) and rec.q == 1.0


def test_the_bootstrap_moves_past_noise_and_stays_on_doubt():
    ref = [0.5] * 100
    hair = [0.5] * 99 + [0.9]  # best mean by 0.004, from one query: 37% of draws lack it
    assert bootstrap_choice({0.7: ref, 0.3: hair}, 0.7)[0] == 0.7
    clear = [0.5] * 70 + [0.7] * 30  # better on 30 queries, worse on none
    assert bootstrap_choice({0.7: ref, 0.3: hair, 0.5: clear}, 0.7) == (0.5, 0.5, 0.0)
    assert doubt([1.0, 0.0], [0.0, 1.0]) > 0.5  # a tie is doubt
    assert bootstrap_choice({0.7: ref}, 0.7) == (0.7, 0.7, 0.0)


def test_a_sweep_with_a_reference_adds_it_to_the_grid_and_recommends(monkeypatch):
    """Stand-ins for the cluster: below q 0.6 the gold document ranks first, else second."""
    from contextlib import contextmanager
    from types import SimpleNamespace

    from qidf_ctl.evaluation import runs
    from qidf_ctl.evaluation.score import score_run

    qrels = {f"q{i}": {"gold": 1} for i in range(20)}
    second = [("x", 1.0), ("gold", 0.5)]
    installed: list[float] = []

    @contextmanager
    def settings_sweep(*_a, **_k):
        yield SimpleNamespace(index="idx", field="text", terms={}, baseline_similarity="BM25",
                              baseline=score_run({q: second for q in qrels}, qrels))

    def search_run(*_a, **_k):
        hits = second[::-1] if installed[-1] < 0.6 else second
        return {q: hits for q in qrels}

    monkeypatch.setattr(sweep_lib, "settings_sweep", settings_sweep)
    monkeypatch.setattr(sweep_lib.install, "apply", lambda c, i, p, **_: installed.append(p.q))
    monkeypatch.setattr(runs, "search_run", search_run)
    res = sweep_lib.sweep(None, "idx", dict.fromkeys(qrels, "t"), qrels, grid=(0.3, 1.0),
                          terms={}, reference=(0.7, "--q auto"))
    assert installed == [0.3, 0.7, 1.0]
    assert res.recommendation is not None and res.recommendation.q == 0.3
    assert res.recommendation.wins == 20 and res.recommendation.losses == 0
    assert res.as_dict()["recommendation"]["reference_q"] == 0.7


def test_without_the_rights_to_measure_the_index_the_sweep_warns_and_does_not_recommend(
        monkeypatch, capsys):
    """A user with search privileges only can sweep at query time, but ``--q auto`` needs
    the index's statistics: one warning line, and the sweep goes on without a reference."""
    from qidf_ctl.cli import evaluation as cli_evaluation
    from qidf_ctl.errors import ClusterError
    from qidf_ctl.predictors import prediction

    def refused(*_a, **_k):
        raise ClusterError("no permissions for [indices:admin/mappings/get]")

    monkeypatch.setattr(prediction, "predict_for_index", refused)
    ref = cli_evaluation._auto_reference(None, "idx", None, {"a": "x"},  # type: ignore[arg-type]
                                         "q.jsonl", lambda _m: None)
    assert ref is None
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: no recommendation")
    assert "indices:admin/mappings/get" in lines[0] and "--reference" in lines[0]
