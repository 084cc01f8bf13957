"""The plugin on a 3-node cluster: ``--mode auto`` (and ``--stats auto``) when only some
data nodes have it, a rolling install on every node during which no search fails, and then
index-wide statistics for plain searches through every node as coordinator.

The tests run in this order: the first leaves the plugin on one node only, the second
installs it on all three (and every later test may count on it being everywhere).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qidf_ctl import install
from qidf_ctl.engine import plugin, process
from qidf_ctl.errors import EXIT_FAILED
from qidf_ctl.install import PLUGIN_NAME
from qidf_ctl.similarity import Mode

from .conftest import query_texts, wait_cluster_green
from .search_load import SearchLoad, expected_totals

pytestmark = pytest.mark.integration


def qidf(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process."""
    return subprocess.run([sys.executable, "-m", "qidf_ctl", *args, "--url", url],
                          capture_output=True, text=True, timeout=300)


def _settings(cluster, index):
    return cluster.request("GET", f"/{index}/_settings", params={"flat_settings": "true"})


def test_auto_chooses_painless_when_one_data_node_lacks_the_plugin(
        cluster3, nodes_cfg, plugin_zip, load_index, urls):
    first, *others = nodes_cfg.ports
    plugin.install_local(nodes_cfg, plugin_zip, ports=[first])
    plugin.remove_local(nodes_cfg, ports=others)
    found = install.presence(cluster3)
    assert sorted(found.data_nodes) == [f"qidf-{p}" for p in nodes_cfg.ports]
    assert sorted(found.missing_on) == [f"qidf-{p}" for p in others]

    mode, reason = install.choose_mode(cluster3, "auto")
    assert mode is Mode.SCRIPT
    assert "Painless" in reason and f"is on 1 of {len(nodes_cfg.ports)} data nodes" in reason

    before = _settings(cluster3, load_index)
    refused = qidf(urls[0], "apply", load_index, "--q", "0.3", "--mode", "plugin")
    assert refused.returncode == EXIT_FAILED, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and PLUGIN_NAME in lines[0]
    assert all(f"qidf-{p}" in lines[0] for p in others), lines[0]
    assert _settings(cluster3, load_index) == before

    done = qidf(urls[1], "apply", load_index, "--q", "0.3", "--json")
    try:
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert "Painless" in result["mode_reason"], result
        assert "is on 1 of" in result["mode_reason"]
        assert install.show(cluster3, load_index)["mode"] == "script"
        # --stats auto keeps per-shard statistics: the processor is missing on two nodes
        assert result["stats"] == "shard", result
        assert all(f"qidf-{p}" in result["stats_reason"] for p in others), result
        assert any("search_type=dfs_query_then_fetch" in w for w in result["warnings"])
        stats = qidf(urls[0], "apply", load_index, "--q", "0.3", "--stats", "index")
        assert stats.returncode == EXIT_FAILED, stats.stderr
        assert "qidf_index_statistics is missing on" in stats.stderr.strip().splitlines()[-1]
    finally:
        install.revert(cluster3, load_index)
    assert _settings(cluster3, load_index) == before


def test_rolling_install_fails_no_search(cluster3, nodes_cfg, plugin_zip, load_index, urls,
                                         go_task):
    texts = query_texts(go_task)
    expected = expected_totals(urls[0], load_index, "text", texts)
    assert min(expected.values()) > 0
    with SearchLoad(urls, load_index, "text", expected) as load:
        info = plugin.install_local(nodes_cfg, plugin_zip)
    report = load.report
    steps = ", ".join(f"{s['port']}: down {s['down_s']:.1f}s of {s['step_s']:.1f}s (change "
                      f"{s['change_s']:.1f}s, drain {s['drain_s']:.1f}s, recovery "
                      f"{s['recovery_s']:.1f}s{', still open: ' if s['drain_busy'] else ''}"
                      f"{s['drain_busy'] or ''})" for s in info["restarts"])
    print(f"\nrolling install on 3 nodes ({steps}); searches: {report.summary()}")
    assert [s["port"] for s in info["restarts"]] == list(nodes_cfg.ports)
    assert report.searches >= 100
    assert report.failed == 0, report.summary()
    assert install.presence(cluster3).everywhere
    assert process.status(nodes_cfg)["running_nodes"] == 3
    # The last node's replicas are still recovering when install returns (yellow: every
    # primary serves); the cluster must become green, not be green at once.
    health = wait_cluster_green(cluster3)
    assert health["status"] == "green" and health["number_of_nodes"] == 3
    mode, reason = install.choose_mode(cluster3, "auto")
    assert mode is Mode.PLUGIN and "all 3 data nodes" in reason


def test_stats_index_gives_plain_searches_through_every_node_index_wide_statistics(
        cluster3, load_index, urls, go_task):
    """6 shards x 2 copies on 3 nodes, the plugin on every node: `--stats auto` would take a
    statistics snapshot; `--stats index` installs qidf's pipeline, and a plain search sent to
    any node (each the coordinator of its own searches) returns what explicit dfs returns;
    revert restores the settings exactly."""
    from .search_load import _post

    before = _settings(cluster3, load_index)
    planned = qidf(urls[0], "apply", load_index, "--q", "0.3", "--dry-run", "--json")
    assert planned.returncode == 0, planned.stderr
    assert json.loads(planned.stdout)["stats"] == "snapshot"
    assert _settings(cluster3, load_index) == before
    done = qidf(urls[0], "apply", load_index, "--q", "0.3", "--stats", "index", "--json")
    try:
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["stats"] == "index", result
        assert result["search_pipeline"] == f"qidf-stats-{load_index}"
        same = total = 0
        for i, text in enumerate(query_texts(go_task)[:30]):
            url = urls[i % len(urls)]
            body = {"size": 10, "_source": False, "query": {"match": {"text": text}}}
            plain = _post(url, f"/{load_index}/_search", body)
            dfs = _post(url, f"/{load_index}/_search?search_type=dfs_query_then_fetch"
                        "&search_pipeline=_none", body)
            total += 1
            same += [(h["_id"], h["_score"]) for h in plain["hits"]["hits"]] == \
                [(h["_id"], h["_score"]) for h in dfs["hits"]["hits"]]
        print(f"\n3 nodes, 6 shards: plain search through qidf's pipeline equals explicit "
              f"dfs on {same}/{total} queries (each node coordinating a third)")
        assert same == total
    finally:
        install.revert(cluster3, load_index)
    assert _settings(cluster3, load_index) == before
