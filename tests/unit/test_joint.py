"""Joint tuning of q, k1 and b: the grid holds both single families, the best is never below
either, the index gets its similarity back, and the apply line installs the best."""

from __future__ import annotations

import shlex

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import FieldInfo, IndexDescription
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.evaluation import joint, runs
from qidf_ctl.evaluation.bootstrap import paired_bootstrap, paired_interval
from qidf_ctl.evaluation.joint import JointPoint, best_point, joint_grid
from qidf_ctl.similarity import Installed, Mode


def test_grids_parse_and_refuse():
    assert joint.parse_k1_grid("0.9,1.2, 0.5") == (0.5, 0.9, 1.2)
    assert joint.parse_b_grid("0:1:0.5") == (0.0, 0.5, 1.0)
    for bad in ("", "x", "-0.1", "11"):
        with pytest.raises(UsageError, match="--k1-grid"):
            joint.parse_k1_grid(bad)
    with pytest.raises(UsageError, match="--b-grid"):
        joint.parse_b_grid("0.5,1.5")


def test_joint_grid_always_holds_q1_and_the_defaults():
    grid = joint_grid((0.3,), (0.9,), (0.4,))
    triples = {(p.q, p.k1, p.b) for p in grid}
    assert len(grid) == 2 * 2 * 2
    assert (1.0, 1.2, 0.75) in triples and (0.3, 1.2, 0.75) in triples
    assert (1.0, 0.9, 0.4) in triples and (0.3, 0.9, 0.4) in triples


def test_best_point_breaks_ties_towards_the_defaults():
    pts = [JointPoint(0.3, 0.9, 0.4, 0.5, 0), JointPoint(1.0, 1.2, 0.75, 0.5, 0),
           JointPoint(0.6, 1.2, 0.75, 0.4, 0)]
    assert best_point(pts).q == 1.0


def test_interval_brackets_the_delta_and_matches_bootstrap_p():
    run = {f"q{i}": (1.0 if i % 3 else 0.0) for i in range(60)}
    base = {f"q{i}": (1.0 if i % 2 else 0.0) for i in range(60)}
    iv = paired_interval(run, base, resamples=2000, seed=3)
    assert iv.low <= iv.delta <= iv.high
    assert iv.p_value == paired_bootstrap(run, base, resamples=2000, seed=3).p_value
    with pytest.raises(Exception, match="level"):
        paired_interval(run, base, level=1.5)


class _Fake:
    def __init__(self) -> None:
        self.before = Installed("builtin")
        self.installed: tuple[float, float, float] | None = None
        self.log: list[str] = []
        self.fail_at: tuple[float, float, float] | None = None


@pytest.fixture
def fake(monkeypatch):
    """Each setting puts the gold doc at a rank from a fixed table: best at q 0.5, k1 0.9,
    b 0.4 (rank 1); q-log alone at (0.5, 1.2, 0.75) rank 2; BM25 with (0.9, 0.4) rank 3."""
    st = _Fake()

    class State(install.SimilarityState):
        @property
        def installed(self) -> Installed:
            return st.before

    def read_state(cluster, name):
        text = FieldInfo("text", "text", "text")
        return State(IndexDescription(name, name, "open", {}, {}, {"text": text}))

    def apply(cluster, name, params, mode=Mode.SCRIPT, **_):
        st.installed = (params.q, params.k1, params.b)
        st.log.append(f"apply {params.describe()}")
        if st.installed == st.fail_at:
            raise ClusterError("boom")

    def revert(cluster, name, **_):
        st.installed = None
        st.log.append("revert")

    ranks = {(0.5, 0.9, 0.4): 1, (0.5, 1.2, 0.75): 2, (1.0, 0.9, 0.4): 3}

    def search_run(cluster, index, field, terms, k=100, **_):
        rank = 4 if st.installed is None else ranks.get(st.installed, 5)
        hits = [(f"x{i}", 1.0) for i in range(rank - 1)] + [("gold", 0.5)]
        return {q: hits[:k] for q in terms}

    monkeypatch.setattr(install, "read_state", read_state)
    monkeypatch.setattr(install, "apply", apply)
    monkeypatch.setattr(install, "revert", revert)
    monkeypatch.setattr(install, "show", lambda c, n: {"similarity": "built-in BM25"})
    monkeypatch.setattr(runs, "search_run", search_run)
    return st


QS = {"a": "code", "b": "more code"}
QRELS = {"a": {"gold": 1}, "b": {"gold": 1}}
TERMS = {"a": {"code": 1}, "b": {"code": 1, "more": 1}}


def test_joint_sweep_finds_the_best_and_both_single_families(fake):
    res = joint.joint_sweep(None, "my idx", QS, QRELS, q_grid=(0.5,), k1_grid=(0.9,),
                            b_grid=(0.4,), terms=TERMS, resamples=200)
    assert (res.best.q, res.best.k1, res.best.b) == (0.5, 0.9, 0.4)
    assert (res.best_q_only.q, res.best_q_only.k1) == (0.5, 1.2)
    assert (res.best_bm25_only.q, res.best_bm25_only.b) == (1.0, 0.4)
    assert res.best_single == "q-log (k1, b at defaults)"
    assert res.best.ndcg10 >= max(res.best_q_only.ndcg10, res.best_bm25_only.ndcg10)
    assert res.vs_baseline.delta == pytest.approx(1.0 - 1 / 2.3219281, abs=1e-6)
    assert res.vs_best_single.delta == pytest.approx(1.0 - 1 / 1.5849625, abs=1e-6)
    assert shlex.split(res.apply_command) == ["qidf", "apply", "my idx", "--q", "0.5",
                                              "--k1", "0.9", "--b", "0.4"]
    assert fake.log[-1] == "revert" and fake.installed is None
    assert len(res.points) == 8 and "baseline" in res.per_query


def test_joint_sweep_restores_whatever_fails(fake):
    fake.fail_at = (1.0, 0.9, 0.4)
    with pytest.raises(ClusterError):
        joint.joint_sweep(None, "idx", QS, QRELS, q_grid=(0.5,), k1_grid=(0.9,),
                          b_grid=(0.4,), terms=TERMS)
    assert fake.log[-1] == "revert" and fake.installed is None


def test_apply_command_names_the_mode_and_field():
    p = JointPoint(0.3, 0.9, 0.4, 0.5, 0.4)
    assert joint.apply_command("i", p, Mode.PLUGIN, "body") == \
        "qidf apply i --q 0.3 --k1 0.9 --b 0.4 --mode plugin --field body"
