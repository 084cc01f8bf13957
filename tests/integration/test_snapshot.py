"""Statistics snapshots on the real engine (``apply --stats snapshot``, issue 34): plain
searches of a 3-shard index of real Go documents (with deletions not merged away) rank and
score exactly as explicit ``dfs_query_then_fetch``; at q = 1 exactly as the built-in BM25 with
dfs; ``show`` says how stale the snapshot is and ``qidf snapshot refresh`` takes it again with
no close; a snapshot another index names (a user's ``_clone``) outlives a revert; ``auto``
prefers a snapshot where the plugin is on every node; switching to and from the pipeline
leaves nothing behind."""

from __future__ import annotations

import os

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import index_path
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.install.pipeline import get_pipeline
from qidf_ctl.similarity import Mode, QlogParams
from qidf_ctl.stats import snapshot as api
from tests.consistency import snapshot_leftovers

from .snapshot_support import agreement, run_cli, sharded_index, snapshot_versus_dfs

pytestmark = pytest.mark.integration
INDEX = "qidf-it-snapshot"


@pytest.fixture(scope="module")
def ready(cluster):
    if not api.support(cluster).available:
        if os.environ.get("QIDF_PLUGIN_ZIP"):
            pytest.fail("QIDF_PLUGIN_ZIP was set but the node has no statistics snapshots")
        pytest.skip("the plugin is not installed (scripts/test.sh builds and installs it)")


def _drop(cluster) -> None:
    for name in (INDEX, f"{INDEX}-copy"):
        if cluster.request("HEAD", index_path(name)) is not False:
            install.revert(cluster, name)
            cluster.request("DELETE", index_path(name))


@pytest.fixture(scope="module")
def built(cluster, ready, go_task):
    _drop(cluster)
    sharded_index(cluster, INDEX, go_task.corpus)
    yield INDEX
    _drop(cluster)
    assert not snapshot_leftovers(cluster)


@pytest.fixture
def index(cluster, built):
    """The module's index, back to the built-in similarity (the tests that add documents or
    make a copy come last, in file order)."""
    install.revert(cluster, built)
    yield built
    assert not snapshot_leftovers(cluster) or api.key_of(
        install.read_state(cluster, built).description.settings)


def test_snapshot_ranks_and_scores_as_explicit_dfs(cluster, index, go_task):
    snap, per_shard = snapshot_versus_dfs(cluster, index, go_task.queries, 0.3)
    print(f"\nsnapshot vs dfs: {snap}; per-shard vs dfs: {per_shard}")
    assert snap["same_ids"] == snap["same_scores"] == snap["queries"] == len(go_task.queries)
    assert per_shard["same_scores"] < snap["queries"] // 2  # the snapshot is doing the work
    shown = install.show(cluster, index)["search_statistics"]
    assert shown["scope"] == "snapshot" and shown["problem"] is None
    held = shown["snapshot"]
    assert held["generation"] == 1 and held["nodes_holding"] == held["data_nodes"] >= 1
    assert held["staleness"]["added"] == 0 and not held["staleness"]["refresh_due"]


def test_q1_with_a_snapshot_is_the_builtin_bm25_with_dfs(cluster, index, go_task):
    terms = queries.analyze_all(cluster, index, indexing.FIELD, go_task.queries)
    builtin = runs.search_run(cluster, index, indexing.FIELD, terms, k=10)  # explicit dfs
    install.apply(cluster, index, QlogParams(1.0), mode=Mode.PLUGIN, stats="snapshot")
    plain = runs.search_run(cluster, index, indexing.FIELD, terms, k=10, search_type=None)
    found = agreement(plain, builtin, tolerance=1e-6)
    print(f"\nq = 1 snapshot vs built-in dfs: {found}")
    assert found["same_ids"] == found["same_scores"] == len(go_task.queries)


def test_auto_prefers_a_snapshot_where_the_plugin_runs(cluster, index):
    result = install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="auto")
    assert result.stats == "snapshot", result.stats_reason
    result = install.apply(cluster, index, QlogParams(0.3), mode=Mode.SCRIPT, stats="auto")
    assert result.stats != "snapshot", result.stats_reason  # Painless reads no snapshot
    assert api.info(cluster, index) is None  # dropped with the key


def test_switching_between_pipeline_and_snapshot_leaves_nothing(cluster, index):
    pid = f"qidf-stats-{index}"
    install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="index")
    assert get_pipeline(cluster, pid) is not None
    install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="snapshot")
    assert get_pipeline(cluster, pid) is None and api.generation(api.info(cluster, index)) == 1
    install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="index")
    assert get_pipeline(cluster, pid) is not None and api.info(cluster, index) is None
    install.revert(cluster, index)
    assert get_pipeline(cluster, pid) is None and not snapshot_leftovers(cluster)


def test_bad_input_is_one_line_and_changes_nothing(cluster, engine_url, index):
    url = engine_url
    settings = cluster.request("GET", index_path(index, "_settings"))
    code, _, err = run_cli(["apply", index, "--q", "0.3", "--mode", "script", "--stats",
                            "snapshot", "--url", url])
    assert code == 2 and err.count("\n") == 1 and "--stats snapshot" in err, err
    code, _, err = run_cli(["snapshot", "refresh", index, "--url", url])
    assert code == 2 and "names no statistics snapshot" in err, err
    assert cluster.request("GET", index_path(index, "_settings")) == settings


def test_show_counts_what_was_added_and_refresh_takes_it_again(cluster, engine_url, index,
                                                               go_task):
    install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="snapshot")
    added = {f"added-{k}": v for k, v in list(go_task.corpus.items())[:400]}
    indexing.bulk_index(cluster, index, added)
    cluster.request("POST", index_path(index, "_refresh"))
    held = install.show(cluster, index)["search_statistics"]["snapshot"]
    assert held["staleness"]["added"] == 400 and held["staleness"]["writes_since"] == 400
    assert held["staleness"]["refresh_due"]
    settings = cluster.request("GET", index_path(index, "_settings"))
    result = install.refresh(cluster, index)
    assert result.changed and result.snapshot and result.snapshot["generation"] == 2
    assert cluster.request("GET", index_path(index, "_settings")) == settings  # no close
    held = install.show(cluster, index)["search_statistics"]["snapshot"]
    assert held["generation"] == 2 and held["staleness"]["added"] == 0
    code, out, err = run_cli(["snapshot", "refresh", index, "--url", engine_url])
    assert code == 0 and "generation 3" in out, err


def test_a_clone_that_names_the_snapshot_keeps_it(cluster, engine_url, index):
    install.apply(cluster, index, QlogParams(0.3), mode=Mode.PLUGIN, stats="snapshot")
    copy = f"{index}-copy"
    cluster.request("PUT", index_path(index, "_block", "write"))
    cluster.request("POST", index_path(index, "_clone", copy),
                    {"settings": {"index.blocks.write": None}})
    cluster.request("PUT", index_path(index, "_settings"), {"index.blocks.write": None})
    cluster.request("GET", "/_cluster/health", params={"wait_for_status": "yellow"})
    assert api.named_by(cluster, index) == sorted([index, copy])
    shown = install.show(cluster, copy)["search_statistics"]["snapshot"]
    assert shown["key"] == index and "another index" in shown["shared"]
    code, _, err = run_cli(["snapshot", "refresh", copy, "--url", engine_url])
    assert code == 2 and err.startswith("error: ") and "another index" in err
    install.revert(cluster, index)
    assert api.generation(api.info(cluster, index)) == 1  # the copy still names it
    install.revert(cluster, copy)  # its _meta.qidf came with the clone
    assert api.info(cluster, index) is None
