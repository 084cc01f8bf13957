"""The benchmark pipeline end to end on a slice of real Go code (3,000 pairs), as CI runs it:
index, sweep, deep evaluation with Recall@8K-tokens and the bootstrap, and the CLI's
``eval`` / ``sweep`` on the same index. The index must end on built-in BM25."""

from __future__ import annotations

import json
import sys

import pytest
from qidf_research import pipeline as benchmark
from qidf_research.corpora import code_to_doc, load_pairs, shipped_corpus

from qidf_ctl import cli, install, stats
from qidf_ctl.evaluation import files
from qidf_ctl.predictors import gate as predictors_fitted

pytestmark = pytest.mark.integration
INDEX = "qidf-bench-it-go3k"


@pytest.fixture(scope="module")
def task():
    pairs = sorted(load_pairs(shipped_corpus("go")), key=lambda p: p.id)[:3000]
    return code_to_doc(pairs, max_queries=200, seed=11)


@pytest.fixture(scope="module")
def result(cluster, task):
    return benchmark.run_task(
        cluster, task, INDEX, grid=(0.05, 0.3, 1.0), resamples=2000,
        predictors={"paper": lambda s: max(0.0, 1 - 7.28 * s["h_occ"])},
        shipped=("qidf-gate",))


def test_pipeline_numbers_are_consistent(cluster, result):
    bm25, best = result.point("bm25"), result.point("oracle")
    curve = {p["q"]: p["ndcg10"] for p in result.sweep["points"]}
    # Depth 10 (sweep) and depth 1000 (deep run) give the same NDCG@10; q = 1 is BM25.
    assert result.sweep["baseline_ndcg10"] == pytest.approx(bm25.metrics["NDCG@10"], abs=1e-12)
    assert curve[1.0] == pytest.approx(bm25.metrics["NDCG@10"], abs=1e-9)
    assert best.q == result.sweep["oracle_q"] and best.q < 1
    assert best.metrics["NDCG@10"] > bm25.metrics["NDCG@10"] + 0.1  # real Go code: big gain
    assert best.p_value < 0.01 and best.sign_flip_share == 0.0
    for p in result.points:
        assert 0 <= p.metrics["Recall@8K-tokens"] <= 1
        assert p.metrics["Recall@100"] >= p.metrics["MRR@10"]
    assert 0 < result.stats["h_occ"] < result.stats["h_vocab"] < 1
    assert 0 < result.point("paper").q < 1
    assert install.show(cluster, INDEX)["kind"] == "builtin"


def test_shipped_predictor_runs_end_to_end(result):
    """The default predictor's q comes from the product's own exact statistics on the
    index and is measured like any other q (Go code: the gate opens)."""
    gate = result.predictions["qidf-gate"]
    assert gate["predictor"] == "qidf-gate" and gate["index"] == INDEX
    assert gate["statistics"]["mode"] == "exact" and gate["statistics"]["documents"] == 3000
    assert result.point("qidf-gate").q == gate["q"] == predictors_fitted.GATE_Q
    assert result.point("qidf-gate").metrics["NDCG@10"] > result.point("bm25").metrics["NDCG@10"]


def _cli(argv, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as info:
        cli.main()
    captured = capsys.readouterr()
    assert info.value.code == 0, captured.err
    return captured.out


def test_cli_eval_baseline_and_sweep(result, task, engine_url, tmp_path, capsys, monkeypatch):
    qf, rf = tmp_path / "q.jsonl", tmp_path / "qrels.trec"
    files.write_queries(task.queries, qf)
    files.write_qrels(task.qrels, rf)
    common = ["--queries", str(qf), "--qrels", str(rf), "--url", engine_url, "--json"]
    bm25 = json.loads(_cli(["eval", INDEX, *common, "--run-out", str(tmp_path / "bm25.run")],
                           capsys, monkeypatch))
    assert bm25["mean"]["NDCG@10"] == pytest.approx(result.point("bm25").metrics["NDCG@10"])
    assert bm25["mean"]["Recall@8K-tokens"] == pytest.approx(
        result.point("bm25").metrics["Recall@8K-tokens"])
    _cli(["apply", INDEX, "--q", "0.05", "--url", engine_url], capsys, monkeypatch)
    try:
        ql = json.loads(_cli(["eval", INDEX, *common, "--baseline", str(tmp_path / "bm25.run"),
                              "--resamples", "2000"], capsys, monkeypatch))
    finally:
        _cli(["revert", INDEX, "--url", engine_url], capsys, monkeypatch)
    assert ql["baseline"]["baseline_mean"] == pytest.approx(bm25["mean"]["NDCG@10"])
    assert ql["baseline"]["delta"] > 0.1 and ql["baseline"]["p_value"] < 0.01
    png = tmp_path / "sweep.png"
    sw = json.loads(_cli(["sweep", INDEX, *common, "--grid", "0.05,1", "--plot", str(png)],
                         capsys, monkeypatch))
    assert sw["oracle_q"] == 0.05 and png.read_bytes()[:4] == b"\x89PNG"
    # The recommendation starts from what `--q auto` picks with these queries as its sample
    # (that q joins the grid) and moves to 0.05, the best mean, unless the bootstrap doubts it.
    auto = json.loads(_cli(["predict", INDEX, "--queries", str(qf), "--url", engine_url,
                            "--json"], capsys, monkeypatch))
    rec = sw["recommendation"]
    assert (rec["reference_q"], rec["reference"]) == (auto["q"], "--q auto") and auto["q"] < 1
    assert sorted(p["q"] for p in sw["points"]) == sorted({0.05, 1.0, auto["q"]})
    assert rec["tested_q"] == 0.05 and rec["wins"] + rec["losses"] <= len(task.queries)
    assert rec["wins"] > rec["losses"]  # real Go code: the lower q wins more queries
    assert (rec["q"] == 0.05) == (rec["doubt"] <= 0.10)
    assert rec["q"] == 0.05  # 0.05 gains 0.1+ NDCG@10 here: no doubt left
    text = _cli(["sweep", INDEX, *common[:-1], "--grid", "0.05", "--reference", "1"],
                capsys, monkeypatch)
    assert "recommended: install q 0.05: " in text and "at BM25 (q = 1)" in text


def test_benchmark_densities_are_the_products(cluster, result):
    """The benchmark's df = 1 densities are the product's, by definition and in value."""
    exact = stats.index_stats(cluster, INDEX, exact=True).fields[0]
    assert set(benchmark.PRODUCT_DENSITIES.values()) <= set(stats.DENSITIES)
    for name, key in benchmark.PRODUCT_DENSITIES.items():
        assert result.stats[name] == pytest.approx(exact.densities[key], rel=1e-12)
