"""What qidf creates outside the index belongs to the index that made it (issue 33,
``qidf_ctl/install/ownership.py``), on the real engine with the plugin's processor:

- apply ``--stats index`` -> ``_clone`` the index -> ``revert`` the original: the clone's
  searches keep working (its default search pipeline, qidf's of the original, is kept and
  the revert says which index uses it); ``revert`` of the clone then points it back at what
  its copied record says it had, and neither revert touches the other's pipeline;
- a pipeline named ``qidf-stats-<index>`` that qidf did not make, or made for another index,
  is refused before anything changes (exit 6, one line naming it);
- an index named ``qidf-state`` that is not qidf's is refused, not written into.
"""

from __future__ import annotations

import json
import os

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import index_path
from qidf_ctl.errors import ClusterError, ConflictError
from qidf_ctl.install import pipeline
from qidf_ctl.install.store import OWNER_DOC, STATE_MAPPING, STATE_SETTINGS, StateStore
from tests.unit.test_cli import run

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def with_plugin(cluster):
    if not install.presence(cluster).everywhere:
        if os.environ.get("QIDF_PLUGIN_ZIP"):
            pytest.fail("QIDF_PLUGIN_ZIP was set but the plugin is not on the node")
        pytest.skip("the plugin is not installed (scripts/test.sh builds and installs it)")

ORIGINAL, CLONE = "qidf-own-original", "qidf-own-clone"
DOCS = [{"text": f"func handleWebSocketUpgrade{i} reader writer conn {i % 7}"}
        for i in range(60)]


def _create(cluster, name: str, shards: int = 2) -> None:
    for gone in (name,):
        try:
            cluster.request("DELETE", index_path(gone))
        except ClusterError as exc:
            if exc.status != 404:
                raise
    cluster.request("PUT", index_path(name), {
        "settings": {"number_of_shards": shards, "number_of_replicas": 0},
        "mappings": {"properties": {"text": {"type": "text"}}}})
    lines = "".join(json.dumps({"index": {"_id": str(i)}}) + "\n" + json.dumps(d) + "\n"
                    for i, d in enumerate(DOCS))
    cluster.request("POST", index_path(name, "_bulk"), lines, {"refresh": "true"})


def _drop(cluster, *names: str) -> None:
    for name in names:
        try:
            cluster.request("DELETE", index_path(name))
        except ClusterError as exc:
            if exc.status != 404:
                raise
    for name in names:
        pipeline.delete_pipeline(cluster, f"qidf-stats-{name}")


def _clone(cluster, source: str, target: str) -> None:
    """What a user (or a backup tool) does: block writes, _clone, unblock both."""
    cluster.request("PUT", index_path(source, "_block", "write"))
    cluster.request("POST", index_path(source, "_clone", target),
                    {"settings": {"index.blocks.write": None, "index.number_of_replicas": 0}})
    cluster.request("PUT", index_path(source, "_settings"), {"index.blocks.write": None})
    cluster.request("GET", "/_cluster/health", params={"index": target,
                                                         "wait_for_status": "green",
                                                         "timeout": "60s"})


def _search(cluster, index: str) -> int:
    """The hits of a plain search of ``index`` (through its default pipeline)."""
    got = cluster.request("POST", index_path(index, "_search"),
                          {"query": {"match": {"text": "handleWebSocketUpgrade3 reader"}}})
    return len(got["hits"]["hits"])


def _setting(cluster, index: str) -> str | None:
    flat = cluster.request("GET", index_path(index, "_settings"),
                           params={"flat_settings": "true"})[index]["settings"]
    return flat.get(pipeline.SETTING)


def test_revert_keeps_the_pipeline_a_clone_still_searches_through(
        cluster, engine_url, with_plugin, capsys, monkeypatch):
    _create(cluster, ORIGINAL)
    _drop(cluster, CLONE)
    try:
        code, _, err = run(["apply", ORIGINAL, "--q", "0.3", "--stats", "index", "--url",
                            engine_url], capsys, monkeypatch)
        assert code == 0, err
        pid = f"qidf-stats-{ORIGINAL}"
        assert _setting(cluster, ORIGINAL) == pid
        _clone(cluster, ORIGINAL, CLONE)
        assert _setting(cluster, CLONE) == pid  # _clone copies the default pipeline
        assert _search(cluster, CLONE) > 0

        code, _out, err = run(["revert", ORIGINAL, "--url", engine_url], capsys, monkeypatch)
        assert code == 0, err
        assert _search(cluster, CLONE) > 0  # the issue: 400 "Pipeline ... is not defined"
        assert pipeline.get_pipeline(cluster, pid) is not None
        assert f"kept the search pipeline {pid}: {CLONE} still uses it" in err
        assert _setting(cluster, ORIGINAL) is None and _search(cluster, ORIGINAL) > 0

        # The clone's own revert: back to what its (copied) record says it had, with its
        # own pipeline never made and the original's left alone.
        code, _out, err = run(["revert", CLONE, "--url", engine_url], capsys, monkeypatch)
        assert code == 0, err
        assert _setting(cluster, CLONE) is None and _search(cluster, CLONE) > 0
        assert pipeline.get_pipeline(cluster, pid) is not None  # not the clone's to delete
        assert pipeline.get_pipeline(cluster, f"qidf-stats-{CLONE}") is None
        shown = install.show(cluster, CLONE)
        assert shown["kind"] == "builtin" and shown["search_statistics"]["problem"] is None
    finally:
        _drop(cluster, ORIGINAL, CLONE)


def test_the_clone_gets_its_own_pipeline_when_applied(cluster, engine_url, with_plugin,
                                                      capsys, monkeypatch):
    _create(cluster, ORIGINAL)
    _drop(cluster, CLONE)
    try:
        code, _, err = run(["apply", ORIGINAL, "--q", "0.3", "--stats", "index", "--url",
                            engine_url], capsys, monkeypatch)
        assert code == 0, err
        _clone(cluster, ORIGINAL, CLONE)
        code, _, err = run(["apply", CLONE, "--q", "0.5", "--stats", "index", "--url",
                            engine_url], capsys, monkeypatch)
        assert code == 0, err
        own = pipeline.get_pipeline(cluster, f"qidf-stats-{CLONE}")
        assert _setting(cluster, CLONE) == f"qidf-stats-{CLONE}" and own is not None
        processors = [next(iter(p)) for p in own["request_processors"]]
        assert processors == [pipeline.PROCESSOR]  # not the original's copied in front
        code, _, err = run(["revert", ORIGINAL, "--url", engine_url], capsys, monkeypatch)
        assert code == 0, err
        assert pipeline.get_pipeline(cluster, f"qidf-stats-{ORIGINAL}") is None  # unused now
        assert _search(cluster, CLONE) > 0
    finally:
        _drop(cluster, ORIGINAL, CLONE)


@pytest.mark.parametrize("description", ["the team's own pipeline",
                                         "qidf: scoring searches of other-index use "
                                         "index-wide term statistics (dfs_query_then_fetch)"])
def test_a_pipeline_that_is_not_this_index_s_is_refused(cluster, engine_url, with_plugin,
                                                        description, capsys,
                                                        monkeypatch):
    _create(cluster, ORIGINAL)
    pid = f"qidf-stats-{ORIGINAL}"
    body = {"description": description, "request_processors": [
        {pipeline.PROCESSOR: {"tag": "the-team"}}]}
    pipeline.put_pipeline(cluster, pid, body)
    try:
        before = cluster.request("GET", index_path(ORIGINAL, "_settings"),
                                 params={"flat_settings": "true"})
        code, _out, err = run(["apply", ORIGINAL, "--q", "0.3", "--stats", "index", "--url",
                              engine_url], capsys, monkeypatch)
        assert code == 6 and err.count("\n") == 1, err
        assert f"the search pipeline {pid!r} exists and is " in err
        assert pipeline.get_pipeline(cluster, pid) == body
        after = cluster.request("GET", index_path(ORIGINAL, "_settings"),
                                params={"flat_settings": "true"})
        assert after == before
    finally:
        _drop(cluster, ORIGINAL)


def test_a_state_index_that_is_not_qidf_s_is_refused(cluster):
    """Its documents are someone's: qidf refuses rather than write leases into it (the store
    under another name, so that the session's own qidf-state stays as it is); qidf's own,
    made by an earlier version without the owner document, is recognised and marked."""
    foreign, legacy = "qidf-own-foreign-state", "qidf-own-legacy-state"
    _drop(cluster, foreign, legacy)
    cluster.request("PUT", index_path(foreign), {"mappings": {"properties": {
        "title": {"type": "text"}}}})
    cluster.request("PUT", index_path(legacy), {"settings": STATE_SETTINGS,
                                                "mappings": STATE_MAPPING})
    try:
        with pytest.raises(ConflictError, match=f"the state index '{foreign}' exists and is "
                           "not qidf's"):
            StateStore(cluster, foreign).ensure()
        count = cluster.request("GET", index_path(foreign, "_count"))["count"]
        assert count == 0
        StateStore(cluster, legacy).ensure()
        assert StateStore(cluster, legacy).get(OWNER_DOC) is not None
        fresh = "qidf-own-fresh-state"
        StateStore(cluster, fresh).ensure()
        assert StateStore(cluster, fresh).get(OWNER_DOC) is not None
        _drop(cluster, fresh)
    finally:
        _drop(cluster, foreign, legacy)
