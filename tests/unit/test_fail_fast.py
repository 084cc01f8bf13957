"""Fail fast, lose nothing: a missing extra or an output path qidf cannot write is refused
before any input is read and before any request (issue 25; issue 28's `sweep --plot` that
installed three similarities, then failed and left `_meta: {}`); what a long command has
measured is printed (and --json returned) when something fails after it."""

from __future__ import annotations

import json
import sys
import time

import pytest

from qidf_ctl.cli import evaluation as cli_evaluation
from qidf_ctl.cli.paths import check_writable
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from qidf_ctl.evaluation import sweep as sweep_lib

from .fake_cluster import FakeEngine, fake_cluster
from .test_cli import run
from .test_sweep import fake  # noqa: F401 - a fixture: test_sweep's stand-ins


@pytest.fixture
def no_matplotlib(monkeypatch):
    """As on an install without the plot extra: ``import matplotlib`` fails."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)


@pytest.fixture
def engine(monkeypatch):
    cluster = FakeEngine()
    connected = []

    def connect(cls, settings):
        connected.append(settings)
        return fake_cluster(cluster)

    monkeypatch.setattr(Cluster, "connect", classmethod(connect))
    cluster.connected = connected
    return cluster


@pytest.fixture
def files(tmp_path):
    queries, qrels = tmp_path / "q.jsonl", tmp_path / "qrels.trec"
    queries.write_text('{"_id": "a", "text": "some code"}\n')
    qrels.write_text("a 0 gold 1\n")
    return str(queries), str(qrels)


def test_sweep_plot_without_matplotlib_fails_in_seconds_before_any_request(
        no_matplotlib, engine, files, capsys, monkeypatch, tmp_path):
    started = time.monotonic()
    code, _, err = run(["sweep", "code", "--queries", files[0], "--qrels", files[1],
                        "--plot", str(tmp_path / "curve.png")], capsys, monkeypatch)
    seconds = time.monotonic() - started
    assert code == 1 and "pip install 'qidf[plot]'" in err and err.count("\n") == 1
    assert seconds < 5
    assert engine.connected == [] and engine.calls == []  # no request, so no change
    assert not (tmp_path / "curve.png").exists()


def test_the_plot_check_comes_before_reading_the_input(no_matplotlib, engine, capsys,
                                                       monkeypatch):
    code, _, err = run(["sweep", "code", "--queries", "/nonexistent.jsonl", "--qrels",
                        "/nonexistent.trec", "--plot", "x.png"], capsys, monkeypatch)
    assert code == 1 and "qidf[plot]" in err


@pytest.mark.parametrize("argv", [
    ["sweep", "code", "--queries", "{q}", "--qrels", "{r}", "--plot", "{bad}"],
    ["eval", "code", "--queries", "{q}", "--qrels", "{r}", "--run-out", "{bad}"],
    ["plan", "-f", "{q}", "--out", "{bad}"],
    ["show", "code", "--trace", "{bad}"],
])
def test_an_output_path_that_cannot_be_written_is_refused_first(argv, engine, files, capsys,
                                                                monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    bad = str(blocker / "out.png")  # a file's "folder": even root cannot write there
    argv = [a.format(q=files[0], r=files[1], bad=bad) for a in argv]
    code, _, err = run(argv, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1, err
    assert engine.connected == [] and engine.calls == []


def test_check_writable_leaves_no_trace(tmp_path):
    target = tmp_path / "new.png"
    assert check_writable(target, "--plot") == target and not target.exists()
    assert check_writable(tmp_path / "sub" / "dir" / "x.png", "--plot", folders=True)
    assert not (tmp_path / "sub").exists()
    with pytest.raises(UsageError, match="does not exist"):  # a writer that makes none
        check_writable(tmp_path / "sub" / "x.run", "--run-out")
    existing = tmp_path / "kept.txt"
    existing.write_text("keep me")
    check_writable(existing, "--out")
    assert existing.read_text() == "keep me"
    with pytest.raises(UsageError, match="is a folder"):
        check_writable(tmp_path, "--out")


@pytest.fixture
def sweep_cli(fake, monkeypatch):  # noqa: F811 - the fixture imported above
    """The CLI's sweep over test_sweep's stand-ins (each q's rank is round(4q))."""
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, s: None))
    monkeypatch.setattr(cli_evaluation, "warn_if_interrupted", lambda *a: None)
    monkeypatch.setattr(sweep_lib, "analyze_queries", lambda *a, **k: {"a": {"code": 1}})
    return fake


def test_a_sweep_that_fails_part_way_prints_what_it_measured(sweep_cli, files, capsys,
                                                             monkeypatch):
    sweep_cli.fail_at_half = True
    argv = ["sweep", "code", "--queries", files[0], "--qrels", files[1], "--grid",
            "0.25,0.5,1", "--reference", "none"]
    code, out, err = run(argv, capsys, monkeypatch)
    assert code == 1 and err.strip().splitlines()[-1] == "error: boom"
    assert "measured before the failure:" in out
    assert "baseline (built-in BM25): NDCG@10 0.5000" in out and "q = 0.25  NDCG@10 1.0000" in out
    assert sweep_cli.log[-1] == "revert"  # the index got its similarity back
    code, out, _ = run([*argv, "--json"], capsys, monkeypatch)
    payload = json.loads(out)  # one object: what was measured, and the error
    assert payload["partial"] is True and payload["error"]["message"] == "boom"
    assert payload["baseline_ndcg10"] == 0.5 and [p["q"] for p in payload["points"]] == [0.25]


def test_results_are_printed_before_a_plot_that_fails(sweep_cli, files, capsys, monkeypatch,
                                                      tmp_path):
    pytest.importorskip("matplotlib")

    def disk_full(result, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(cli_evaluation.plot_lib, "plot", disk_full)
    argv = ["sweep", "code", "--queries", files[0], "--qrels", files[1], "--grid", "0.25,1",
            "--reference", "none", "--plot", str(tmp_path / "c.png")]
    code, out, err = run(argv, capsys, monkeypatch)
    assert code == 2 and "q = 0.25  NDCG@10 1.0000  <- oracle" in out
    assert "No space left on device" in err
    code, out, _ = run([*argv, "--json"], capsys, monkeypatch)
    payload = json.loads(out)
    assert payload["oracle_q"] == 0.25 and "No space left" in payload["error"]["message"]


def test_the_demo_checks_its_folder_before_starting_an_engine(capsys, monkeypatch, tmp_path):
    from qidf_ctl.engine import process

    started = []
    monkeypatch.setattr(process, "start", lambda *a, **k: started.append(a) or {})
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, _, err = run(["demo", "--out-dir", str(blocker / "demo")], capsys, monkeypatch)
    assert code == 2 and "--out-dir" in err and started == []
