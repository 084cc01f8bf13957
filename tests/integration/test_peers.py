"""The peers benchmark and joint tuning on a real node, small: a slice of the shipped Go
corpus, a few settings of each family. The engine accepts every family's settings the grids
use (and refuses what the grids leave out), a setting that ranks like another measures like
it, and the index ends on its built-in similarity."""

from __future__ import annotations

import json
import sys

import pytest
from qidf_research.corpora import code_to_doc, load_pairs, shipped_corpus
from qidf_research.peers import measure
from qidf_research.peers import settings as st
from qidf_research.peers.compare import summarize
from qidf_research.peers.split import split_queries
from qidf_research.peers.store import Store

from qidf_ctl import cli, install
from qidf_ctl.errors import QidfError
from qidf_ctl.evaluation import files, indexing, joint
from qidf_ctl.install.validate import validate_on_scratch_index

pytestmark = pytest.mark.integration
INDEX_KEY = "it-go2k"


@pytest.fixture(scope="module")
def task():
    pairs = sorted(load_pairs(shipped_corpus("go")), key=lambda p: p.id)[:2000]
    return code_to_doc(pairs, max_queries=120, seed=5)


@pytest.fixture(scope="module")
def bench(cluster, task, tmp_path_factory):
    root = tmp_path_factory.mktemp("peers")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(measure, "VALIDATED", root / "validated.json")
        store = Store(root, INDEX_KEY, indexing.fingerprint(task.corpus, "standard"))
        b = measure.CorpusBench(cluster, INDEX_KEY, task, "standard",
                                split_queries(task.queries), store, measure.Validator(cluster))
        yield b
        b.restore_default()


SETTINGS = [
    st.bm25(0.9, 0.4), st.lm_dirichlet(100), st.lm_jelinek_mercer(0.7),
    *[st.dfr(m, a, "h2") for m in ("g", "if", "in", "ine") for a in ("b", "l")],
    *[st.dfr("g", "l", n) for n in ("no", "h1", "h3", "z")],
    *[st.ib(d, la, "h2") for d in ("ll", "spl") for la in ("df", "ttf")],
    *[st.dfi(m) for m in ("standardized", "saturated", "chisquared")],
    st.idf_gamma(2.0), st.qlog(0.3),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.key)
def test_the_engine_accepts_every_family_the_grids_use(cluster, setting):
    validate_on_scratch_index(cluster, setting.similarity(cluster.engine.default_is_legacy_bm25))


@pytest.mark.parametrize("sim", [{"type": "DFR", "basic_model": "be", "after_effect": "b",
                                  "normalization": "h2"},
                                 {"type": "DFR", "basic_model": "g", "after_effect": "no",
                                  "normalization": "h2"}])
def test_the_engine_refuses_what_the_grids_leave_out(cluster, sim):
    with pytest.raises(QidfError, match="isn't supported anymore"):
        validate_on_scratch_index(cluster, sim)


def test_settings_are_measured_and_summarised(cluster, bench):
    base = bench.mean(st.default())
    scripted_one = st.Setting("qlog", (("q", 1.0), ("k1", 0.9), ("b", 0.4)))
    # q-log at q = 1 ranks like BM25 with the same k1 and b: the reason they share a key.
    assert bench.mean(scripted_one) == pytest.approx(bench.mean(st.bm25(0.9, 0.4)), abs=1e-9)
    assert bench.mean(st.qlog(0.3)) > base + 0.05  # real Go code: q-log's big gain
    cands = {"bm25_default": [st.default()], "bm25": [st.default(), st.bm25(0.9, 0.4)],
             "lm_dirichlet": [st.lm_dirichlet(100)], "qlog": [st.qlog(0.3)],
             "shipped": [st.qlog(0.6)], "joint": [st.qlog(0.3), st.default()]}
    out = summarize(bench, cands, resamples=500)
    assert out["best_single"] == "qlog" and out["best_peer"] in ("bm25", "lm_dirichlet",
                                                                  "bm25_default")
    assert out["comparisons"]["qlog_vs_best_peer"]["queries"] == len(bench.split.heldout)
    # The cache resumes: nothing is measured again.
    before = bench.searches
    bench.mean(st.lm_dirichlet(100))
    assert bench.searches == before
    bench.restore_default()
    assert install.show(cluster, bench.index)["kind"] == "builtin"


def test_joint_sweep_and_its_apply_line(cluster, engine_url, bench, task, tmp_path, monkeypatch,
                                        capsys):
    bench.ensure_ready()
    install.revert(cluster, bench.index)  # a rerun after a failure may find a q installed
    res = joint.joint_sweep(cluster, bench.index, task.queries, task.qrels, q_grid=(0.3,),
                            k1_grid=(0.9,), b_grid=(0.4,), resamples=500)
    assert len(res.points) == 8
    assert res.best.ndcg10 >= max(res.best_q_only.ndcg10, res.best_bm25_only.ndcg10)
    assert res.best.q == 0.3 and res.vs_baseline.low > 0
    assert install.show(cluster, bench.index)["kind"] == "builtin"
    # The CLI prints the same best with --json, and its apply line installs it.
    qf, rf = tmp_path / "q.jsonl", tmp_path / "r.tsv"
    files.write_queries(task.queries, qf)
    files.write_qrels(task.qrels, rf)
    argv = ["sweep", bench.index, "--queries", str(qf), "--qrels", str(rf), "--grid", "0.3",
            "--k1-grid", "0.9", "--b-grid", "0.4", "--json", "--url", engine_url]
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["apply_command"] == res.apply_command
    line = data["apply_command"].split()[1:]
    monkeypatch.setattr(sys, "argv", ["qidf", *line, "--url", engine_url])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    shown = install.show(cluster, bench.index)
    assert shown["kind"] == "qlog"
    assert (shown["params"]["q"], shown["params"]["k1"], shown["params"]["b"]) == (
        res.best.q, res.best.k1, res.best.b)
    install.revert(cluster, bench.index)
