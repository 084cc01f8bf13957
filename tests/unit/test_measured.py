"""q measured on the index: the simulator's pieces (rare tokens, the anchor's null, the df
match, the simulated query) and qidf-measured's decision around qidf-content's."""

from __future__ import annotations

import dataclasses
import random

import pytest

from qidf_ctl.measured import simulate as sim
from qidf_ctl.predictors import content, measured
from qidf_ctl.predictors.base import Decision
from qidf_ctl.stats.query_sample import from_texts


def test_rare_is_the_upper_half_of_the_idf_scale():
    assert sim.rare_limit(10_000) == 100
    tpl = sim.Template({"a": 1, "b": 2, "c": 1, "zz": 1}, {"a": 3, "b": 100, "c": 101, "zz": 0})
    assert tpl.rare(10_000) == ["a", "b"]  # df 101 is common, df 0 matches nothing


@pytest.mark.parametrize("dfs, n, expected", [
    ([], 1000, 0),
    ([1, 1, 1], 1000, 1),          # a lone df-1 token sits in one document: count 1
    ([500, 500, 500, 500], 1000, 4),  # half the documents each: some hold all four
    ([10] * 20, 10_000, 2),
])
def test_null_max_is_what_random_placement_reaches(dfs, n, expected):
    assert sim.null_max(dfs, n) == expected


def test_null_max_grows_with_the_tokens_df():
    assert sim.null_max([5] * 30, 10_000) <= sim.null_max([50] * 30, 10_000)


TEMPLATE = sim.Template({"func": 3, "readall": 1, "reader": 2, "eof": 1},
                        {"func": 9000, "readall": 1, "reader": 40, "eof": 30})


def test_simulate_moves_the_anchor_tokens_to_the_best_matching_target():
    targets = [sim.Target("anchor", {"readall": 1, "reader": 40}),
               sim.Target("poor", {"the": 5000, "value": 3000}),
               sim.Target("good", {"flush": 1, "writer": 38, "func": 9000})]
    s = sim.simulate(TEMPLATE, ["readall", "reader"], "anchor", targets, 10_000,
                     random.Random(0), draws=30)
    assert s is not None and s.answer == "good" and s.moved == 2
    # the moved tokens keep their repeat counts; the rest of the template is untouched, and a
    # target token already in the query (func) is never used for a move
    assert s.counts == {"func": 3, "eof": 1, "flush": 1, "writer": 2}


def test_simulate_never_answers_with_the_anchor_and_needs_something_to_move():
    only_anchor = [sim.Target("anchor", {"x": 1})]
    assert sim.simulate(TEMPLATE, ["readall"], "anchor", only_anchor, 100,
                        random.Random(0)) is None
    assert sim.simulate(TEMPLATE, [], "anchor", [sim.Target("d", {"x": 1})], 100,
                        random.Random(0)) is None


def test_argmax_ties_go_towards_bm25():
    assert sim.argmax({0.3: 0.5, 0.6: 0.5, 1.0: 0.4}) == 0.6


class _Field:
    field = "text"


def _code_queries():
    return from_texts({f"q{i}": f"func f{i}(a int) {{ return g(a)[{i}]; }}" for i in range(5)},
                      "sample")


def test_decide_takes_the_measured_q_where_content_leaves_bm25(monkeypatch):
    monkeypatch.setattr(content, "decide", lambda fs, qs: Decision(
        0.7, "7% of 1,000 sampled documents look like code: a text field, 95% of 1,000 "
             "sampled queries look like code: text searched with code -> q 0.70: rare"))
    queries = dataclasses.replace(_code_queries(), measured={
        "q": 0.3, "curve": {"0.3": 0.41, "0.7": 0.35, "1": 0.2}, "simulated": 612})
    d = measured.decide(_Field(), queries)  # type: ignore[arg-type]
    assert d.q == 0.3 and "\n" not in d.reason
    assert "612 simulated known-item queries" in d.reason and d.reason.endswith("-> q 0.30")
    assert "0.350 at q 0.7" in d.reason
    assert d.evidence["measured_q"].value == 0.3


def test_decide_is_content_s_wherever_content_keeps_bm25(monkeypatch):
    kept = Decision(1.0, "text searched with text -> q 1.00: BM25 is right here")
    monkeypatch.setattr(content, "decide", lambda fs, qs: kept)
    queries = dataclasses.replace(_code_queries(), measured={"q": 0.3, "curve": {"0.3": 0.4},
                                                             "simulated": 5})
    assert measured.decide(_Field(), queries) is kept  # type: ignore[arg-type]
    assert measured.decide(_Field(), None) is kept  # type: ignore[arg-type]


def test_nothing_is_measured_where_content_keeps_bm25(monkeypatch):
    monkeypatch.setattr(content, "decide", lambda fs, qs: Decision(1.0, "BM25"))

    def refuse(*args, **kwargs):
        raise AssertionError("measured although BM25 stays")

    monkeypatch.setattr(measured, "measure_q", refuse)
    queries = _code_queries()
    assert measured.measure(None, "i", _Field(), queries, None) is queries  # type: ignore[arg-type]


def test_refine_climbs_to_the_peak_of_the_full_grid():
    from qidf_ctl.measured.measure import COARSE, GRID, refine

    full = {q: -abs(q - 0.2) for q in GRID}  # one peak, at 0.2
    curve = {q: full[q] for q in COARSE}
    while todo := refine(GRID, curve):
        curve.update({q: full[q] for q in todo})
    assert sim.argmax(curve) == 0.2 and len(curve) < len(GRID)


def test_an_index_that_is_not_bm25_is_not_measured_and_says_so(monkeypatch):
    """Query-time boosts on an index already scored with q-log would stack: the constant
    stays and the reason says why nothing was measured."""
    from qidf_ctl.errors import ConflictError

    monkeypatch.setattr(content, "decide", lambda fs, qs: Decision(0.7, "code queries -> q 0.70"))

    def conflict(*args, **kwargs):
        raise ConflictError("index 'i' already scores with q-log BM25 q=0.7")

    monkeypatch.setattr(measured, "measure_q", conflict)
    queries = measured.measure(None, "i", _Field(), _code_queries(), None)  # type: ignore[arg-type]
    d = measured.decide(_Field(), queries)  # type: ignore[arg-type]
    assert d.q == 0.7 and d.reason.endswith(
        "not measured on the index: index 'i' already scores with q-log BM25 q=0.7")
