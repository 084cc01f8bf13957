"""``--stats``: which statistics an index's scoring searches use, on the fake engine: the
requests apply and revert make (pipeline before setting, setting before delete), composing
with a default pipeline the index already has, exact restoration, the refusals, and what
``show`` and ``predict`` say a multi-shard index costs where qidf cannot fix it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from qidf_ctl import install
from qidf_ctl.errors import ClusterError, ConflictError, QidfError, UsageError
from qidf_ctl.install import pipeline, scope, shard_cost
from qidf_ctl.install.pipeline import PROCESSOR, SETTING
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster
from .test_cli import engine, run  # noqa: F401 - the fixture

PLUGIN = ("qidf-qlog-similarity",)
PID = "qidf-stats-code"
MINE = {"description": "the team's", "request_processors": [{"filter_query": {
    "query": {"term": {"lang": "go"}}}}], "response_processors": [{"rename_field": {
        "field": "a", "target_field": "b"}}]}
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "sharding" / "results.json"


def sharded(shards: int = 3, plugins: tuple[str, ...] = PLUGIN, **settings: str) -> FakeEngine:
    return FakeEngine(plugins=plugins, extra_settings={"index.number_of_shards": str(shards),
                                                       **settings})


def pipeline_writes(fake: FakeEngine) -> list[tuple[str, str]]:
    return [(m, p) for m, p in fake.writes()
            if p.startswith("/_search/pipeline") or p == "/code/_settings"]


# --- the measured curve ----------------------------------------------------------------------


def test_the_curve_is_the_benchmarks():
    corpus = next(c for c in json.loads(RESULTS.read_text())["corpora"]
                  if c["language"] == "go-large")
    got = {(s["shards"], s["search_type"]): s for s in corpus["settings"]}
    for n, value in shard_cost.QLOG_QTF.items():
        assert round(got[(n, "query_then_fetch")]["predicted"], 4) == value
    for n, value in shard_cost.QLOG_DFS.items():
        assert round(got[(n, "dfs_query_then_fetch")]["predicted"], 4) == value
    assert round(got[(1, "query_then_fetch")]["bm25"], 4) == shard_cost.BM25_ONE_SHARD
    assert got[(1, "query_then_fetch")]["predicted_q"] == shard_cost.Q


def test_lost_share_interpolates_between_measured_shard_counts():
    gain = shard_cost.QLOG_QTF[1] - shard_cost.BM25_ONE_SHARD
    assert shard_cost.lost_share(1) == 0
    at3 = (shard_cost.QLOG_QTF[1] - shard_cost.QLOG_QTF[3]) / gain
    at12 = (shard_cost.QLOG_QTF[1] - shard_cost.QLOG_QTF[12]) / gain
    assert shard_cost.lost_share(3) == pytest.approx(at3)
    assert shard_cost.lost_share(12) == pytest.approx(at12)
    assert at3 < shard_cost.lost_share(6) < at12
    assert shard_cost.lost_share(48) == pytest.approx(at12)
    assert shard_cost.cost_line(1) is None
    assert "about" in shard_cost.cost_line(6) and "at least" in shard_cost.cost_line(24)
    assert f"{at3:.0%}" in shard_cost.cost_line(3)


# --- show and predict ------------------------------------------------------------------------


def test_show_names_the_cost_and_the_client_change_where_qidf_cannot(engine, capsys,  # noqa: F811
                                                                    monkeypatch):
    engine.settings["index.number_of_shards"] = "6"
    code, out, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and err.startswith("warning: the index has 6 shards")
    assert err.count("\n") == 1 and "search_type=dfs_query_then_fetch" in err
    code, out, _ = run(["show", "code", "--url", "http://127.0.0.1:1", "--json"], capsys,
                       monkeypatch)
    shown = json.loads(out)
    assert "6 shards" in shown["sharding_warning"]
    assert shown["search_statistics"]["scope"] == "shard"
    engine.settings["index.number_of_shards"] = "1"
    code, out, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and err == ""


def test_show_points_to_stats_index_where_every_node_has_the_processor(engine, capsys,  # noqa: F811
                                                                      monkeypatch):
    engine.plugins = PLUGIN
    engine.settings["index.number_of_shards"] = "3"
    code, _, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and "--stats index" in err and "search_type=" not in err
    install.apply(fake_cluster(engine), "code", QlogParams(0.3), stats="index")
    code, out, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and err == ""
    assert "searches: index-wide statistics" in out and PID in out


def test_show_warns_when_the_default_pipeline_is_gone():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    del fake.pipelines[PID]
    problem = install.show(cluster, "code")["search_statistics"]["problem"]
    assert "fails" in problem and PID in problem


def test_elasticsearch_gets_the_client_change():
    fake = sharded(12)
    cluster = fake_cluster(fake, "8.19.21", "elasticsearch")
    advice = scope.advice(cluster, 12, scope.SHARD)
    assert advice is not None and "search_type=dfs_query_then_fetch" in advice
    assert "12 shards" in advice and "at least" not in advice


# --- apply and revert -------------------------------------------------------------------------


def test_stats_index_writes_the_pipeline_before_the_setting_and_revert_undoes_it_exactly():
    fake = sharded()
    cluster = fake_cluster(fake)
    before = copy.deepcopy(fake.settings)
    result = install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert result.changed and result.stats == "index" and result.search_pipeline == PID
    # the pipeline (before the index closes: nothing names it yet), the similarity (on the
    # closed index), then the setting that names the pipeline
    assert pipeline_writes(fake) == [("PUT", f"/_search/pipeline/{PID}"),
                                     ("PUT", "/code/_settings"), ("PUT", "/code/_settings")]
    assert [p for _, p in fake.writes()].index(f"/_search/pipeline/{PID}") < \
        [p for _, p in fake.writes()].index("/code/_close")
    assert fake.settings[SETTING] == PID
    assert fake.pipelines[PID]["request_processors"] == [{PROCESSOR: {"tag": "qidf"}}]
    assert fake.mapping["_meta"]["qidf"]["stats"] == {
        "scope": "index", "pipeline": PID, "previous": None, "composes": None}
    fake.calls.clear()
    install.revert(cluster, "code")
    assert pipeline_writes(fake)[-2:] == [("PUT", "/code/_settings"),
                                            ("DELETE", f"/_search/pipeline/{PID}")]
    assert fake.settings == before and fake.pipelines == {}


def test_an_existing_default_pipeline_runs_first_and_is_never_written():
    fake = sharded(**{SETTING: "mine"})
    fake.pipelines["mine"] = copy.deepcopy(MINE)
    cluster = fake_cluster(fake)
    before = copy.deepcopy(fake.settings)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    ours = fake.pipelines[PID]
    assert ours["request_processors"] == [*MINE["request_processors"],
                                          {PROCESSOR: {"tag": "qidf"}}]
    assert ours["response_processors"] == MINE["response_processors"]
    assert "mine" in ours["description"]
    assert fake.mapping["_meta"]["qidf"]["stats"]["composes"] == "mine"
    install.revert(cluster, "code")
    assert fake.settings == before and fake.pipelines == {"mine": MINE}
    assert not [p for m, p in fake.writes() if p == "/_search/pipeline/mine"]


def test_a_changed_user_pipeline_is_copied_again_by_the_next_apply():
    fake = sharded(**{SETTING: "mine"})
    fake.pipelines["mine"] = copy.deepcopy(MINE)
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    fake.pipelines["mine"]["request_processors"].append({"oversample": {"sample_factor": 2}})
    assert "changed since" in install.show(cluster, "code")["search_statistics"]["problem"]
    result = install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert result.changed and "kept" in result.message
    assert fake.pipelines[PID]["request_processors"][-2:] == [
        {"oversample": {"sample_factor": 2}}, {PROCESSOR: {"tag": "qidf"}}]
    assert install.show(cluster, "code")["search_statistics"]["problem"] is None


def test_auto_needs_several_shards_and_the_processor_everywhere():
    for shards, plugins, want in ((1, PLUGIN, "shard"), (3, (), "shard"), (3, PLUGIN, "index")):
        fake = sharded(shards, plugins)
        result = install.apply(fake_cluster(fake), "code", QlogParams(0.3), stats="auto")
        assert result.stats == want, (shards, plugins)
        assert (SETTING in fake.settings) == (want == "index")
        if shards > 1 and want == "shard":
            assert any("search_type=dfs_query_then_fetch" in w for w in result.warnings)


def test_stats_alone_changes_only_the_pipeline_and_the_record():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="shard")
    installed = copy.deepcopy(fake.mapping["_meta"]["qidf"]["installed"])
    fake.calls.clear()
    result = install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert result.changed and "kept" in result.message and "index-wide" in result.message
    assert not [p for m, p in fake.writes() if p.endswith(("_close", "_open"))]
    assert fake.mapping["_meta"]["qidf"]["installed"] == installed
    result = install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert not result.changed and "nothing changed" in result.message
    install.apply(cluster, "code", QlogParams(0.3), stats="shard")
    assert SETTING not in fake.settings and fake.pipelines == {}
    assert "stats" not in fake.mapping["_meta"]["qidf"]


def test_no_stats_argument_leaves_the_pipeline_as_it_is():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    install.apply(cluster, "code", QlogParams(0.5))
    assert fake.settings[SETTING] == PID and PID in fake.pipelines
    assert fake.mapping["_meta"]["qidf"]["stats"]["pipeline"] == PID  # the record keeps it
    assert install.show(cluster, "code")["search_statistics"]["problem"] is None


def test_recover_repairs_what_a_hand_broke():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    del fake.pipelines[PID]  # every search of the index fails now
    assert "recover" in install.show(cluster, "code")["search_statistics"]["problem"]
    result = install.recover(cluster, "code")
    assert result.changed and "written again" in result.message
    assert fake.pipelines[PID]["request_processors"][-1] == {PROCESSOR: {"tag": "qidf"}}
    fake.settings.pop(SETTING)  # someone points the index away from qidf's pipeline
    assert "_meta.qidf.stats" in install.show(cluster, "code")["search_statistics"]["problem"]
    result = install.recover(cluster, "code")
    assert result.changed and "record was removed" in result.message
    assert "stats" not in fake.mapping["_meta"]["qidf"]
    assert install.show(cluster, "code")["search_statistics"]["problem"] is None


def test_a_missing_user_pipeline_is_refused_before_anything_changes():
    fake = sharded(**{SETTING: "gone"})
    with pytest.raises(ConflictError, match="'gone' does not exist"):
        install.apply(fake_cluster(fake), "code", QlogParams(0.3), stats="index")
    assert [w for w in fake.writes() if not w[1].startswith("/qidf-")] == []


def test_stats_index_is_a_usage_error_where_the_engine_has_no_pipelines():
    fake = sharded()
    cluster = fake_cluster(fake, "8.19.21", "elasticsearch")
    with pytest.raises(UsageError, match="search_type=dfs_query_then_fetch") as info:
        install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert info.value.exit_code == 2 and fake.writes() == []
    with pytest.raises(UsageError, match=r"2\.9"):
        install.apply(fake_cluster(sharded(), "2.7.0"), "code", QlogParams(0.3), stats="index")


def test_a_refused_pipeline_stops_the_change_before_the_index_closes():
    fake = sharded()
    cluster = fake_cluster(fake)

    def refuse(method, path, body):
        if method == "PUT" and path.startswith("/_search/pipeline/"):
            raise ClusterError("security_exception: no permissions for "
                               "[cluster:admin/search/pipeline/put]", status=403,
                               error_type="security_exception")

    fake.before = refuse
    with pytest.raises(ClusterError, match="pipeline/put"):
        install.apply(cluster, "code", QlogParams(0.3), stats="index")
    fake.before = None
    assert fake.similarity() == {} and SETTING not in fake.settings
    assert not [p for _, p in fake.writes() if p.endswith("_close")]
    assert not any(k.startswith("journal:") for k in fake.state_docs())


def test_a_user_who_may_not_read_pipelines_gets_per_shard_statistics_from_auto():
    fake = sharded()

    def forbid(method, path, body):
        if path.startswith("/_search/pipeline/"):
            raise ClusterError("security_exception", status=403, error_type="security_exception")

    fake.before = forbid
    result = install.apply(fake_cluster(fake), "code", QlogParams(0.3), stats="auto")
    assert result.changed and result.stats == "shard" and "qidf_stats" in result.stats_reason
    with pytest.raises(ClusterError, match="qidf_stats") as info:
        install.apply(fake_cluster(fake), "code", QlogParams(0.5), stats="index")
    assert info.value.exit_code == 4


def test_stats_index_without_the_processor_names_the_nodes():
    fake = sharded(plugins=())
    with pytest.raises(QidfError, match="missing on master-1, node-1"):
        install.apply(fake_cluster(fake), "code", QlogParams(0.3), stats="index")
    assert fake.writes() == []


def test_bad_stats_is_one_usage_line(engine, capsys, monkeypatch):  # noqa: F811
    code, _, err = run(["apply", "code", "--q", "0.3", "--stats", "global"], capsys,
                         monkeypatch)
    assert code == 2 and err.count("\n") == 1
    assert "--stats must be index, snapshot, shard or auto" in err
    assert engine.calls == []


def test_converge_is_idempotent():
    fake = sharded()
    cluster = fake_cluster(fake)
    side = pipeline.StatsSide(PID, pipeline.compose("code", None, None))
    assert pipeline.converge(cluster, "code", PID, side)
    fake.calls.clear()
    assert not pipeline.converge(cluster, "code", PID, side)
    assert fake.writes() == []


# --- reopen -----------------------------------------------------------------------------------


def test_reopen_is_refused_on_opensearch_before_any_request(engine, capsys,  # noqa: F811
                                                            monkeypatch):
    code, _, err = run(["apply", "code", "--q", "0.3", "--strategy", "reopen"], capsys,
                         monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "Elasticsearch 8.12+" in err
    assert engine.calls == []
    code, _, err = run(["revert", "code", "--strategy", "reopen"], capsys, monkeypatch)
    assert code == 2 and engine.calls == []


def test_reopen_is_refused_before_elasticsearch_8_12():
    fake = FakeEngine()
    with pytest.raises(UsageError, match=r"8\.12"):
        install.apply(fake_cluster(fake, "8.11.4", "elasticsearch"), "code", QlogParams(0.3),
                      strategy="reopen")
    assert fake.calls == []


def test_reopen_is_one_settings_call_with_reopen_true():
    fake = FakeEngine(similarity={"type": "BM25", "k1": "1.1"})
    cluster = fake_cluster(fake, "8.19.21", "elasticsearch")
    result = install.apply(cluster, "code", QlogParams(0.3), strategy="reopen")
    assert result.changed and result.strategy == "reopen" and result.closed_seconds > 0
    index_writes = [(m, p) for m, p in fake.writes() if p.startswith("/code/")]
    assert index_writes == [("PUT", "/code/_settings"), ("PUT", "/code/_mapping")]
    put = [c[:2] for c in fake.calls].index(("PUT", "/code/_settings"))
    assert fake.queries[put]["reopen"] == "true"
    assert fake.similarity()["type"] == "scripted" and fake.status == "open"
    install.revert(cluster, "code", strategy="reopen")
    assert fake.similarity() == {"type": "BM25", "k1": "1.1"}


# --- queries that will not score with q-log ----------------------------------------------------


def test_a_percolator_field_and_elasticsearch_combined_fields_are_warned_about():
    fake = FakeEngine(mapping={"properties": {"body": {"type": "text"},
                                              "query": {"type": "percolator"}}})
    result = install.apply(fake_cluster(fake), "code", QlogParams(0.3))
    assert [w for w in result.warnings if "percolator field query" in w
            and "default similarity" in w]
    assert not [w for w in result.warnings if "combined_fields" in w]
    again = install.apply(fake_cluster(fake), "code", QlogParams(0.3))
    assert not again.changed and again.warnings == []  # said when the similarity changes
    es = FakeEngine()
    result = install.apply(fake_cluster(es, "8.19.21", "elasticsearch"), "code",
                           QlogParams(0.3))
    assert [w for w in result.warnings if "combined_fields" in w and "cross_fields" in w]
