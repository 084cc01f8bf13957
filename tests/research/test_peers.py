"""The peers benchmark's pure parts: settings and their index settings, the searches, the
split, the cache, choosing on tuning and reporting on held-out, and the tables."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from qidf_research.bench_report import load_peers
from qidf_research.peers import families as fam
from qidf_research.peers import settings as st
from qidf_research.peers.compare import summarize
from qidf_research.peers.report import docs_table, render_peers
from qidf_research.peers.scripted import idf_gamma_similarity
from qidf_research.peers.split import split_queries
from qidf_research.peers.store import Store

from qidf_ctl.formula import InvalidParameter


def test_settings_that_rank_alike_share_one_key():
    assert st.qlog(1.0, 0.9, 0.4) == st.bm25(0.9, 0.4)
    assert st.qlog(1.0) == st.bm25(1.2, 0.75) == st.default()
    assert st.idf_gamma(1.0) == st.default()
    assert st.qlog(0.3).key == "qlog q=0.3 k1=1.2 b=0.75"
    assert st.bm25(0.9 * 0.75, 0.4).key == "BM25 k1=0.675 b=0.4"


def test_index_settings_of_each_kind():
    assert st.default().similarity(True) == {}
    assert st.lm_dirichlet(200).similarity(True) == {"type": "LMDirichlet", "mu": 200.0}
    assert st.dfr("g", "l", "h3").similarity(True) == {
        "type": "DFR", "basic_model": "g", "after_effect": "l", "normalization": "h3",
        "normalization.h3.c": 800.0}
    assert st.dfr("in", "l", "no").similarity(True) == {
        "type": "DFR", "basic_model": "in", "after_effect": "l", "normalization": "no"}
    assert st.ib("spl", "df", "z", 0.5).similarity(False)["normalization.z.z"] == 0.5
    assert st.qlog(0.3).similarity(True)["type"] == "scripted"


def test_idf_gamma_script_holds_only_validated_numbers():
    sim = idf_gamma_similarity(2.0, 1.2, 0.75, legacy=True)
    src = sim["weight_script"]["source"]
    assert "Math.pow(idf, 2.0)" in src and "* 2.2" in src
    for bad in (0.0, -1.0, math.nan, math.inf, 11.0):
        with pytest.raises(InvalidParameter):
            idf_gamma_similarity(bad, 1.2, 0.75, legacy=True)


def _smooth(peak: dict[str, float]):
    """A fake tuning measure: highest at ``peak`` (per parameter), falling off smoothly."""
    def evaluate(s: st.Setting) -> float:
        params = dict(s.params)
        if s.kind == "default":
            params = {"k1": 1.2, "b": 0.75, "q": 1.0}
        if s.kind == "BM25":
            params["q"] = 1.0
        return 1.0 - sum(abs(math.log(float(params[k]) + 1) - math.log(v + 1))
                         for k, v in peak.items() if isinstance(params.get(k), float))
    return evaluate


def test_line_search_extends_past_an_edge_and_refines():
    ev = _smooth({"mu": 5.0})
    tried = fam.search_lm_dirichlet(ev)
    best = fam.best(ev, tried)
    assert best.get("mu") < 10  # the grid starts at 10: the edge was extended
    assert len(tried) <= len(fam.MU_GRID) + 4


def test_bm25_search_starts_from_the_default_and_finds_a_better_pair():
    ev = _smooth({"k1": 0.9, "b": 0.4})
    cands = fam.search_bm25(ev)
    assert cands[0] == st.default()
    top = fam.best(ev, cands)
    assert abs(top.get("k1") - 0.9) < 0.2 and abs(top.get("b") - 0.4) < 0.11


@pytest.mark.parametrize("seed", range(5))
def test_joint_is_never_below_tuned_bm25_or_tuned_qlog_on_tuning(seed):
    rng = random.Random(seed)
    cache: dict[str, float] = {}

    def ev(s: st.Setting) -> float:
        return cache.setdefault(s.key, rng.random())

    bm25 = fam.search_bm25(ev)
    qlog = fam.search_qlog(ev)
    joint = fam.search_joint(ev, qlog, bm25)
    assert set(bm25) <= set(joint) and set(qlog) <= set(joint)
    assert ev(fam.best(ev, joint)) >= max(ev(fam.best(ev, bm25)), ev(fam.best(ev, qlog)))


def test_pruned_and_full_dfr_plans():
    ev = _smooth({"c": 2.0})
    pruned = fam.search_dfr(ev, full=False)
    full = fam.search_dfr(ev, full=True)
    assert set(fam.dph_like()) <= set(pruned)
    assert len({(s.get("basic_model"), s.get("after_effect"), s.get("normalization"))
                for s in full}) == 4 * 2 * 5
    assert len(pruned) < len(full)


def test_split_is_seeded_disjoint_and_order_free():
    qids = [f"q{i}" for i in range(101)]
    a, b = split_queries(qids), split_queries(reversed(qids))
    assert a == b and len(a.tuning) == 50 and len(a.heldout) == 51
    assert not set(a.tuning) & set(a.heldout)
    assert set(a.tuning) | set(a.heldout) == set(qids)


def test_store_resumes_and_sets_aside_a_changed_corpus(tmp_path):
    s = Store(tmp_path, "c", "fp1")
    s.put({"setting": "default", "split": "tuning", "ndcg": {"a": 1.0}})
    assert Store(tmp_path, "c", "fp1").get("default", "tuning")["ndcg"] == {"a": 1.0}
    assert Store(tmp_path, "c", "fp2").get("default", "tuning") is None
    assert any(p.name.startswith("c.stale-") for p in tmp_path.iterdir())


class _Bench:
    """Per-query NDCG@10 from a table: setting key -> (tuning value, held-out value)."""

    def __init__(self, table: dict[str, tuple[float, float]]) -> None:
        self.table = table
        self.split = split_queries([f"q{i}" for i in range(40)])

    def ndcg(self, s: st.Setting, split: str) -> dict[str, float]:
        v = self.table[s.key][0 if split == "tuning" else 1]
        return {q: v for q in self.split.of(split)}

    def mean(self, s: st.Setting, split: str = "tuning") -> float:
        return self.table[s.key][0 if split == "tuning" else 1]


def test_summary_chooses_on_tuning_and_reports_held_out():
    lm_good, lm_bad = st.lm_dirichlet(100), st.lm_dirichlet(1000)
    table = {"default": (0.30, 0.30), lm_good.key: (0.40, 0.31), lm_bad.key: (0.35, 0.50),
             st.qlog(0.3).key: (0.45, 0.44)}
    cands = {"bm25_default": [st.default()], "lm_dirichlet": [lm_good, lm_bad],
             "qlog": [st.qlog(0.3)], "joint": [st.qlog(0.3), st.default()]}
    out = summarize(_Bench(table), cands, resamples=200)  # type: ignore[arg-type]
    lm = out["families"]["lm_dirichlet"]
    assert lm["setting"] == lm_good.key and lm["heldout"] == 0.31  # not the held-out best
    assert out["best_peer"] == out["best_builtin"] == "lm_dirichlet"
    c = out["comparisons"]["qlog_vs_best_peer"]
    assert c["delta"] == pytest.approx(0.13) and c["low"] <= c["delta"] <= c["high"]
    assert out["joint_not_below_bm25_or_qlog_on_tuning"]
    each = out["comparisons"]["qlog_vs_lm_dirichlet"]  # every family, not only the best
    assert each["baseline"] == "lm_dirichlet" and each["delta"] == pytest.approx(0.13)
    assert "qlog_vs_dfr" not in out["comparisons"]  # a family not measured is left out


def test_report_renders_every_table():
    fams = {n: {"setting": "x", "kind": "qlog" if n in ("qlog", "shipped", "joint") else "LM",
                "params": {"q": 0.5, "k1": 1.2, "b": 0.75}, "tuning": 0.3, "heldout": 0.3}
            for n in ("bm25_default", "bm25", "lm_dirichlet", "qlog", "shipped", "joint")}
    cmp = {"delta": 0.01, "low": 0.0, "high": 0.02, "p_value": 0.04}
    data = {"engine": "OpenSearch 2.19.6", "resamples": 10, "regenerate": "cmd",
            "plan": json.loads(json.dumps({"bm25": {"b": [1], "k1": [1]}, "qlog": {"q": [1]},
                                           "lm_dirichlet": {"mu": [1]},
                                           "lm_jelinek_mercer": {"lambda": [1]},
                                           "idf_gamma": {"gamma": [1]}})),
            "corpora": {"go-code2doc": {
                "group": "code2doc", "documents": 10, "families": fams,
                "best_peer": "lm_dirichlet", "best_builtin": "lm_dirichlet",
                "best_single": "qlog",
                "comparisons": {"qlog_vs_best_peer": cmp, "shipped_vs_best_peer": cmp,
                                "qlog_vs_best_builtin": cmp, "shipped_vs_best_builtin": cmp,
                                "joint_vs_best_single": cmp, "joint_vs_bm25_default": cmp,
                                "qlog_vs_lm_dirichlet": cmp},
                "cost": {"settings_measured": 3, "searches": 30, "search_seconds": 1.0}}}}
    text = "\n".join(render_peers(data))
    assert "| go-code2doc | 10 |" in text and "### Joint tuning" in text
    assert ("| code → doc (standard analyzer) | 1 | LMDirichlet (1) | 1 / 0, +0.0100 (+0.0100 "
            "to +0.0100) | LMDirichlet (1) |") in text
    assert ("| code → doc (standard analyzer) | 1 | 0 / 0 | 0 / 0 | 1 / 0 | 0 / 0 |"
            in text)  # q-log above LMDirichlet, the only family compared
    assert render_peers({"corpora": {}}) == []


def test_each_shipped_cell_names_its_predictor():
    """The default predictor changed between runs: a row never hides which one it measured,
    and a count over rows lists the predictors behind it."""
    from qidf_research.peers.report import headline

    fams = {n: {"kind": "qlog", "params": {"q": q}, "tuning": 0.3, "heldout": 0.3}
            for n, q in (("bm25_default", 1.0), ("qlog", 0.4), ("shipped", 0.7))}
    fams["lm_dirichlet"] = {"kind": "LM", "params": {"mu": 100.0}, "tuning": 0.3,
                            "heldout": 0.29}
    cmp = {"delta": 0.01, "low": 0.0, "high": 0.02, "p_value": 0.04}
    row = {"group": "code2doc", "families": fams, "best_peer": "lm_dirichlet",
           "best_builtin": "lm_dirichlet", "comparisons": {"shipped_vs_best_builtin": cmp,
                                                           "qlog_vs_best_builtin": cmp}}
    corpora = {"a": {**row, "shipped_prediction": {"predictor": "qidf-gate", "q": 0.7}},
               "b": {**row, "shipped_prediction": {"predictor": "qidf-content", "q": 0.7,
                                                   "query_sample": "the task's queries"}}}
    table = docs_table(corpora)
    assert "0.3000 (q 0.7, qidf-gate)" in table[2]
    assert "0.3000 (q 0.7, qidf-content +queries)" in table[3]
    assert "[qidf-content +queries 1, qidf-gate 1]" in "\n".join(headline(corpora))


def test_docs_page_shows_the_measured_table():
    """docs/explanation/peers.md's table is peers.json's, row for row: no claim without its row."""
    peers = load_peers()
    if peers is None:
        pytest.skip("benchmarks/retrieval/peers.json not generated")
    page = (Path(__file__).resolve().parents[2] / "docs" / "explanation" / "peers.md").read_text()
    rows = docs_table(peers["corpora"])
    assert len(rows) == 2 + len(peers["corpora"])
    missing = [r for r in rows if r not in page.splitlines()]
    assert not missing, "docs/explanation/peers.md is out of date " \
        "(python -m qidf_research.peers.report):\n" + "\n".join(missing)
