"""``engine start`` says when the disk under the node's data is past the engine's disk
watermarks (a node started there runs, and says nothing: a cluster stays yellow, or its
indices turn read-only)."""

from __future__ import annotations

import json
import sys
from collections import namedtuple

import pytest

from qidf_ctl import cli
from qidf_ctl.engine import disk, process

Usage = namedtuple("Usage", "total used free")


@pytest.mark.parametrize(("used", "nodes", "expected"), [
    (0.50, 1, None),
    (0.849, 3, None),
    (0.86, 1, "low watermark (85%)"),
    (0.86, 3, "replicas are not assigned, so the cluster stays yellow"),
    (0.91, 1, "high watermark (90%)"),
    (0.96, 3, "flood stage (95%): its indices turn read-only"),
])
def test_each_watermark_gets_its_own_consequence(used: float, nodes: int,
                                                 expected: str | None) -> None:
    line = disk.watermark_warning(used, nodes)
    if expected is None:
        assert line is None
    else:
        assert line is not None and expected in line and f"{used:.0%}" in line
        assert "\n" not in line and "free disk space" in line


def test_used_share_reads_the_nearest_existing_parent(tmp_path, monkeypatch) -> None:
    seen = []

    def usage(path):
        seen.append(path)
        return Usage(100, 87, 13)

    monkeypatch.setattr(disk.shutil, "disk_usage", usage)
    assert disk.used_share(tmp_path / "not" / "yet") == 0.87
    assert seen == [tmp_path]


def _fake_start(monkeypatch, nodes: int) -> None:
    info = {"already_running": False, "version": "2.19.6", "url": "http://127.0.0.1:9",
            "health": "yellow", "node_dir": "/x",
            "nodes": [{"url": f"http://127.0.0.1:{9 + i}", "running": True, "pid": 1,
                       "node_dir": "/x"} for i in range(nodes)]}
    monkeypatch.setattr(process, "start", lambda cfg, progress=None: dict(info))


def test_engine_start_warns_on_stderr_and_in_json(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("QIDF_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(disk.shutil, "disk_usage", lambda path: Usage(100, 88, 12))
    _fake_start(monkeypatch, 3)
    monkeypatch.setattr(sys, "argv", ["qidf", "engine", "start", "--nodes", "3"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    assert exit_info.value.code in (0, None)
    assert captured.err.count("warning:") == 1 and "stays yellow" in captured.err
    monkeypatch.setattr(sys, "argv", ["qidf", "engine", "start", "--nodes", "3", "--json"])
    with pytest.raises(SystemExit):
        cli.main()
    payload = json.loads(capsys.readouterr().out)
    assert "88% full" in payload["disk_warning"]


def test_engine_start_on_a_roomy_disk_says_nothing_more(tmp_path, monkeypatch,
                                                        capsys) -> None:
    monkeypatch.setenv("QIDF_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(disk.shutil, "disk_usage", lambda path: Usage(100, 40, 60))
    _fake_start(monkeypatch, 1)
    monkeypatch.setattr(sys, "argv", ["qidf", "engine", "start", "--json"])
    with pytest.raises(SystemExit):
        cli.main()
    assert json.loads(capsys.readouterr().out)["disk_warning"] is None
