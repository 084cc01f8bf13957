"""``show`` and ``predict`` warn about per-shard statistics on an index with several shards."""

from __future__ import annotations

import json

from qidf_ctl.cli.sharding import sharding_warning

from .fake_cluster import FakeEngine
from .test_cli import engine, run  # noqa: F401 - the fixture


def test_one_shard_needs_no_warning():
    assert sharding_warning(1) is None
    text = sharding_warning(6)
    assert text is not None and "6 shards" in text and "dfs_query_then_fetch" in text


def test_show_warns_on_stderr_and_in_json(engine: FakeEngine, capsys, monkeypatch):  # noqa: F811
    engine.settings["index.number_of_shards"] = "6"
    code, out, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and err.startswith("warning: the index has 6 shards")
    assert err.count("\n") == 1
    code, out, _ = run(["show", "code", "--url", "http://127.0.0.1:1", "--json"], capsys,
                       monkeypatch)
    assert "6 shards" in json.loads(out)["sharding_warning"]
    engine.settings["index.number_of_shards"] = "1"
    code, out, err = run(["show", "code", "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 0 and err == ""
