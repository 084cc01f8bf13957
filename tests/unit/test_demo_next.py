"""The commands the demo prints next: runnable as printed from any folder (the qidf that runs,
by path when it is not the one on PATH; the demo's cluster named again, never a credential).
The real run of them, verbatim, is tests/integration/test_demo_path.py."""

from __future__ import annotations

import sys
from types import SimpleNamespace

from qidf_ctl.cli import demo as cli_demo
from qidf_ctl.cli.options import ClusterOptions

RESULT = SimpleNamespace(index="qidf-demo-go", queries_file="/h/demo/queries.jsonl",
                         qrels_file="/h/demo/qrels.trec", predicted_q=0.7, recommended_q=0.05,
                         example={"code_head": "func mergePAX(hdr *Header) (err error) {\n"})


def _steps(conn: ClusterOptions, url: str, stop_port: int | None) -> list[str]:
    return [c for c, _ in cli_demo.next_commands(RESULT, conn, url, stop_port)]


def test_the_default_local_engine_needs_no_url(monkeypatch):
    monkeypatch.setattr(cli_demo, "qidf_command", lambda: "qidf")
    steps = _steps(ClusterOptions(), "http://127.0.0.1:9200", 9200)
    assert steps == [
        "qidf predict qidf-demo-go --queries /h/demo/queries.jsonl",
        "qidf sweep qidf-demo-go --queries /h/demo/queries.jsonl --qrels /h/demo/qrels.trec "
        f"--grid {cli_demo.SWEEP_GRID} --plot /h/demo/sweep.png",
        "qidf apply qidf-demo-go --q 0.05",
        "qidf search qidf-demo-go 'func mergePAX(hdr *Header) (err error)' --vs bm25",
        "qidf show qidf-demo-go",
        "qidf mcp qidf-demo-go --queries /h/demo/queries.jsonl",
        "qidf revert qidf-demo-go", "qidf engine stop"]


def test_sweep_recommends_what_the_demo_measured_with_the_same_points():
    """The sweep the demo prints runs the demo's own q (and 1, the BM25 row), with --q auto
    as the reference, as the demo's recommendation does: the same numbers, the same q."""
    from qidf_ctl.demo.run import GRID

    assert ",".join(f"{q:g}" for q in (*GRID, 1.0)) == cli_demo.SWEEP_GRID


def test_where_bm25_is_recommended_apply_is_auto(monkeypatch):
    monkeypatch.setattr(cli_demo, "qidf_command", lambda: "qidf")
    keeps = SimpleNamespace(**{**vars(RESULT), "recommended_q": 1.0})
    steps = [c for c, _ in cli_demo.next_commands(keeps, ClusterOptions(),
                                                   "http://127.0.0.1:9200", 9200)]
    assert "qidf apply qidf-demo-go --q auto --queries /h/demo/queries.jsonl" in steps


def test_another_port_or_cluster_is_named_on_every_command(monkeypatch):
    monkeypatch.setattr(cli_demo, "qidf_command", lambda: "qidf")
    steps = _steps(ClusterOptions(), "http://127.0.0.1:9400", 9400)
    assert all(s.endswith("--url http://127.0.0.1:9400") for s in steps[:7])
    assert steps[7] == "qidf engine stop --port 9400"
    remote = _steps(ClusterOptions(url="https://search.example.com:9200"),
                    "https://search.example.com:9200", None)
    assert len(remote) == 7 and "engine stop" not in " ".join(remote)
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
