"""The commands the demo prints next: runnable as printed from any folder (the qidf that runs,
by path when it is not the one on PATH; the demo's cluster named again, never a credential).
The real run of them, verbatim, is tests/integration/test_demo_path.py."""

from __future__ import annotations

import sys
from types import SimpleNamespace

from qidf_ctl.cli import demo as cli_demo
from qidf_ctl.cli.options import ClusterOptions

RESULT = SimpleNamespace(index="qidf-demo-go", queries_file="/h/demo/queries.jsonl",
                         qrels_file="/h/demo/qrels.trec")


def _steps(conn: ClusterOptions, url: str, stop_port: int | None) -> list[str]:
    return [c for c, _ in cli_demo.next_commands(RESULT, conn, url, stop_port)]


def test_the_default_local_engine_needs_no_url(monkeypatch):
    monkeypatch.setattr(cli_demo, "qidf_command", lambda: "qidf")
    steps = _steps(ClusterOptions(), "http://127.0.0.1:9200", 9200)
    assert steps == [
        "qidf predict qidf-demo-go --queries /h/demo/queries.jsonl",
        "qidf sweep qidf-demo-go --queries /h/demo/queries.jsonl --qrels /h/demo/qrels.trec "
        f"--grid {cli_demo.SWEEP_GRID} --plot /h/demo/sweep.png",
        "qidf apply qidf-demo-go --q auto --queries /h/demo/queries.jsonl",
        "qidf show qidf-demo-go", "qidf revert qidf-demo-go", "qidf engine stop"]


def test_another_port_or_cluster_is_named_on_every_command(monkeypatch):
    monkeypatch.setattr(cli_demo, "qidf_command", lambda: "qidf")
    steps = _steps(ClusterOptions(), "http://127.0.0.1:9400", 9400)
    assert all(s.endswith("--url http://127.0.0.1:9400") for s in steps[:5])
    assert steps[5] == "qidf engine stop --port 9400"
    remote = _steps(ClusterOptions(url="https://search.example.com:9200"),
                    "https://search.example.com:9200", None)
    assert len(remote) == 5 and "engine stop" not in " ".join(remote)
    profiled = _steps(ClusterOptions(profile="my prod"), "https://x:9200", None)
    assert all(s.endswith("--profile 'my prod'") for s in profiled)


def test_the_qidf_that_runs_by_path_when_it_is_not_on_path(monkeypatch, tmp_path):
    program = tmp_path / "venv" / "bin" / "qidf"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program), "demo"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert cli_demo.qidf_command() == str(program)
    monkeypatch.setenv("PATH", str(program.parent))
    assert cli_demo.qidf_command() == "qidf"
    monkeypatch.setattr(sys, "argv", ["/x/qidf_ctl/__main__.py", "demo"])
    assert cli_demo.qidf_command().endswith(" -m qidf_ctl")
