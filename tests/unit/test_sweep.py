"""The q grid, the oracle choice, and that a sweep always gives the index its similarity back."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import FieldInfo, IndexDescription
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.evaluation import runs
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.evaluation.plot import plot
from qidf_ctl.evaluation.sweep import SweepPoint, oracle, parse_grid
from qidf_ctl.similarity import Installed, Mode, QlogParams


def test_parse_grid_list_and_range():
    assert parse_grid("0.3,0.05, 1") == (0.05, 0.3, 1.0)
    assert parse_grid("0.05:0.25:0.05") == (0.05, 0.1, 0.15, 0.2, 0.25)
    assert sweep_lib.DEFAULT_GRID[0] <= 0.05 and sweep_lib.DEFAULT_GRID[-1] >= 1.5


@pytest.mark.parametrize("text", ["", "abc", "0.1,3", "0:1:0", "nan", "-0.1"])
def test_parse_grid_refuses_bad_input(text):
    with pytest.raises(UsageError, match="--grid"):
        parse_grid(text)


def test_oracle_prefers_q_nearest_1_on_ties():
    pts = [SweepPoint(0.1, 0.5, 0), SweepPoint(0.6, 0.5, 0), SweepPoint(1.2, 0.4, 0)]
    assert oracle(pts).q == 0.6


class _State:
    def __init__(self, before: Installed) -> None:
        self.before = before
        self.installed: float | None = None
        self.log: list[str] = []


@pytest.fixture
def fake(monkeypatch):
    """Stand-ins for the cluster calls: each q's run puts the gold doc at rank round(1/q)."""
    st = _State(Installed("builtin"))

    class State(install.SimilarityState):
        @property
        def installed(self) -> Installed:
            return st.before

    def read_state(cluster, name):
        text = FieldInfo("text", "text", "text")
        return State(IndexDescription(name, name, "open", {}, {}, {"text": text}))

    def apply(cluster, name, params, mode=Mode.SCRIPT, **_):
        st.installed = params.q
        st.log.append(f"apply {params.q:g}")
        if params.q == 0.5 and st.fail_at_half:
            raise ClusterError("boom")

    def revert(cluster, name, **_):
        st.installed = None
        st.log.append("revert")

    def search_run(cluster, index, field, terms, k=100, **_):
        rank = 3 if st.installed is None else max(1, round(st.installed * 4))
        hits = [(f"x{i}", 1.0) for i in range(rank - 1)] + [("gold", 0.5)]
        return {q: hits[:k] for q in terms}

    st.fail_at_half = False
    monkeypatch.setattr(install, "read_state", read_state)
    monkeypatch.setattr(install, "apply", apply)
    monkeypatch.setattr(install, "revert", revert)
    monkeypatch.setattr(install, "show", lambda c, n: {"similarity": "built-in BM25"})
    monkeypatch.setattr(runs, "search_run", search_run)
    return st


QS = {"a": "some code"}
QRELS = {"a": {"gold": 1}}
TERMS = {"a": {"code": 1}}


def test_sweep_finds_the_oracle_and_reverts(fake):
    res = sweep_lib.sweep(None, "idx", QS, QRELS, grid=(0.25, 0.5, 1.0), terms=TERMS)
    assert [p.ndcg10 for p in res.points] == pytest.approx([1.0, 1 / 1.5849625, 1 / 2.3219281])
    assert res.oracle_q == 0.25 and res.baseline_ndcg10 == pytest.approx(0.5)
    assert fake.log[-1] == "revert" and fake.installed is None
    assert set(res.per_query) == {"baseline", "0.25", "0.5", "1"}


def test_sweep_restores_even_when_a_point_fails(fake):
    fake.fail_at_half = True
    with pytest.raises(ClusterError):
        sweep_lib.sweep(None, "idx", QS, QRELS, grid=(0.25, 0.5, 1.0), terms=TERMS)
    assert fake.log[-1] == "revert" and fake.installed is None


def test_sweep_puts_back_a_q_that_was_installed_before(fake):
    fake.before = Installed("qlog", Mode.SCRIPT, QlogParams(0.3), True)
    sweep_lib.sweep(None, "idx", QS, QRELS, grid=(0.25, 1.0), terms=TERMS)
    assert fake.log[-1] == "apply 0.3" and fake.installed == 0.3


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    res = sweep_lib.SweepResult("idx", "text", 1, "BM25", 0.4,
                                [SweepPoint(0.1, 0.6, 0.5), SweepPoint(1.0, 0.4, 0.3)],
                                0.1, 0.6, 1.0)
    out = plot(res, tmp_path / "s.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
