"""``sweep --query-time`` and ``eval --query-time`` search with built queries and never
change the index."""

from __future__ import annotations

from collections import Counter

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import evaluate, runs
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.formula import IdfForm
from qidf_ctl.querytime import QueryTime, Target


class FakeQueryTime:
    target = Target("idx", "text", 1, "built-in default similarity (BM25)", True)
    form = IdfForm.LUCENE

    def __init__(self) -> None:
        self.q = 1.0
        self.built_at: list[float | None] = []

    def tokens(self, text: str) -> Counter[str]:
        return Counter(text.split())

    def queries(self, terms, q=None):
        self.built_at.append(q)
        return {qid: {"q": self.q if q is None else q} for qid in terms}

    def describe(self, q=None) -> str:
        return "q-log at query time"


@pytest.fixture
def fake(monkeypatch):
    qt = FakeQueryTime()
    def connect(cls, cluster, index, q, field_name=None, **options):
        qt.q = q
        return qt

    monkeypatch.setattr(QueryTime, "connect", classmethod(connect))

    def never(*args, **kwargs):
        raise AssertionError("the index was touched")

    for name in ("apply", "revert", "read_state"):
        monkeypatch.setattr(install, name, never)

    def search_run(cluster, index, field, terms, k=100, queries=None, **_):
        # baseline: gold at rank 3; built queries: gold at rank round(4 q)
        q = None if queries is None else next(iter(queries.values()))["q"]
        rank = 3 if q is None else max(1, round(q * 4))
        hits = [(f"x{i}", 1.0) for i in range(rank - 1)] + [("gold", 0.5)]
        return {qid: hits[:k] for qid in terms}

    monkeypatch.setattr(runs, "search_run", search_run)
    return qt


QS = {"a": "some code"}
QRELS = {"a": {"gold": 1}}


def test_query_time_sweep_builds_each_q_and_leaves_the_index_alone(fake):
    res = sweep_lib.sweep(None, "idx", QS, QRELS, grid=(0.25, 0.5, 1.0), query_time=True)
    assert fake.built_at == [0.25, 0.5]  # q = 1 is the baseline's own query: not sent again
    assert [p.ndcg10 for p in res.points] == pytest.approx([1.0, 1 / 1.5849625, 0.5])
    assert res.oracle_q == 0.25 and res.baseline_ndcg10 == pytest.approx(0.5)
    assert res.baseline_similarity == "built-in default similarity (BM25)"


def test_query_time_eval_searches_the_built_queries(fake, monkeypatch):
    monkeypatch.setattr(evaluate, "token_counts_for_run",
                        lambda cluster, index, field, run, *a, **k: {d: 10 for hits in
                                                                     run.values() for d, _ in hits})
    result, run = evaluate.evaluate_index(None, "idx", QS, QRELS, query_time_q=0.25,
                                          counter_name="regex")
    assert fake.built_at == [None]  # the builder's own q
    assert result.similarity == "q-log at query time"
    assert run["a"][0][0] == "gold"
