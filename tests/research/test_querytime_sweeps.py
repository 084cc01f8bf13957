"""The sweep timing's bookkeeping (medians, speed-ups, the table) with the sweep itself
stubbed: the real sweeps run in ``python -m qidf_research.bench_querytime``. A run crashed
here once, after 15 minutes of sweeps, because query time's median was read before it was
computed."""

from __future__ import annotations

from types import SimpleNamespace

from qidf_research.querytime import report, sweeps

from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.similarity import Mode


def test_medians_speedups_and_table(monkeypatch):
    points = [SimpleNamespace(ndcg10=0.5), SimpleNamespace(ndcg10=0.6)]
    monkeypatch.setattr(sweep_lib, "sweep", lambda *a, **k: SimpleNamespace(points=points))
    task = SimpleNamespace(queries={"a": "x"}, qrels={"a": {"d": 1}})
    out = sweeps.time_sweeps(None, "idx", task, (0.3, 1.0), 3, (Mode.SCRIPT, Mode.PLUGIN),
                             lambda line: None)
    assert out["variants"] == ["settings_script", "settings_plugin", "query_time"]
    assert len(out["repeats"]) == 3 and out["curves_identical"]
    assert out["query_time_speedup_of_query_time"] == 1.0
    expected = out["settings_plugin_seconds_median"] / out["query_time_seconds_median"]
    assert out["settings_plugin_speedup_of_query_time"] == expected
    table = report.sweep_table({"sweep": {**out, "corpus": "go-code2doc"}})
    assert table.count("| median |") == 3 and "Median speed-up" in table
