"""``stats`` in qidf.toml on the fake engine: plan shows the default search pipeline change
(alone, with no close, when q is already installed), apply -f installs it, check reports it
as drift and notes what per-shard statistics cost where qidf cannot run its pipeline."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.desired import Connections, apply_plan, check, make_plan, parse
from qidf_ctl.desired.text import format_check, format_plan
from qidf_ctl.errors import UsageError
from qidf_ctl.install.pipeline import SETTING
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster

PLUGIN = ("qidf-qlog-similarity",)


def _file(stats: str = "auto", strategy: str = "close") -> str:
    return (f'[[target]]\nindex = "code"\nq = 0.3\nmode = "script"\nstats = "{stats}"\n'
            f'strategy = "{strategy}"\n')


def _conns(fake: FakeEngine, distribution: str = "opensearch") -> Connections:
    version = "8.19.21" if distribution == "elasticsearch" else "2.19.6"
    return Connections({}, fallback=lambda: None,  # type: ignore[arg-type,return-value]
                       connect=lambda _: fake_cluster(fake, version, distribution))


def _sharded(shards: int = 3, plugins: tuple[str, ...] = PLUGIN) -> FakeEngine:
    return FakeEngine(plugins=plugins, extra_settings={"index.number_of_shards": str(shards)})


def test_auto_on_several_shards_plans_and_applies_the_pipeline():
    fake = _sharded()
    state = parse(_file(), "qidf.toml")
    plan = make_plan(state, _conns(fake))
    (item,) = plan.items
    assert item.stats == "index" and not item.stats_only
    assert {"key": SETTING, "before": None, "after": "qidf-stats-code"} in item.settings_diff
    assert any("qidf_index_statistics" in n for n in item.notes)
    assert not check(state, _conns(fake)).in_sync
    assert apply_plan(plan, _conns(fake)).ok
    assert fake.settings[SETTING] == "qidf-stats-code"
    assert check(state, _conns(fake)).in_sync


def test_the_pipeline_alone_is_planned_without_a_close():
    fake = _sharded()
    install.apply(fake_cluster(fake), "code", QlogParams(0.3), stats="shard")
    state = parse(_file("index"), "qidf.toml")
    plan = make_plan(state, _conns(fake))
    (item,) = plan.items
    assert item.stats_only and "per-shard statistics" in item.reason
    assert plan.summary()["close"] == 0 and plan.summary()["pipelines"] == 1
    assert "will set its default search pipeline and record (no close)" in format_plan(plan)
    fake.calls.clear()
    assert apply_plan(plan, _conns(fake)).ok
    assert not [p for _, p in fake.writes() if p.endswith(("_close", "_open"))]
    assert check(state, _conns(fake)).in_sync


def test_check_notes_the_cost_where_the_pipeline_cannot_run():
    fake = _sharded(12)
    state = parse(_file(), "qidf.toml")
    conns = _conns(fake, "elasticsearch")
    assert apply_plan(make_plan(state, conns), conns).ok
    report = check(state, conns)
    assert report.in_sync
    text = format_check(report)
    assert "12 shards" in text and "search_type=dfs_query_then_fetch" in text


def test_stats_index_and_reopen_are_refused_where_the_engine_lacks_them():
    with pytest.raises(UsageError, match="no search pipelines"):
        make_plan(parse(_file("index"), "qidf.toml"), _conns(_sharded(), "elasticsearch"))
    with pytest.raises(UsageError, match="reopen"):
        make_plan(parse(_file(strategy="reopen"), "qidf.toml"), _conns(_sharded()))
    with pytest.raises(Exception, match="stats must be one of"):
        parse(_file("global"), "qidf.toml")
