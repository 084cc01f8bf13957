"""Every output path checked before any request, and every reader bounded (issue 33 item 5,
``qidf_ctl/outfile.py``): a FIFO (no hang), a device (``/dev/full``, ``/dev/null``), a name
longer than the file system allows, a folder, a parent that is a file, a picture format
matplotlib does not write; each one line, exit 2, naming the option and the path, with no
request sent. A trace file that fills in the middle of a change stops the command (exit 2,
naming the file) and the index is settled. The config file: nesting deeper than qidf reads,
``timeout = -1``, ``--profile ''``: one line naming the file and the key."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from qidf_ctl import outfile
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError

from .fake_cluster import FakeEngine, fake_cluster
from .test_cli import run

LONG = "a" * 300


@pytest.fixture
def fake(monkeypatch):
    """The fake engine, through the command line's request log (its --trace)."""
    engine = FakeEngine()

    def connect(cls, settings):
        return Cluster(engine, fake_cluster(engine).engine, "http://fake:9200",
                       request_log=settings.request_log)

    monkeypatch.setattr(Cluster, "connect", classmethod(connect))
    return engine


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _no_hang(argv, capsys, monkeypatch):
    """The command, with a watchdog: a FIFO opened to write would block forever."""
    timer = threading.Timer(60, lambda: os._exit(99))
    timer.start()
    try:
        return run(argv, capsys, monkeypatch)
    finally:
        timer.cancel()


@pytest.mark.parametrize("option", ["--trace", "--run-out"])
@pytest.mark.parametrize("bad", ["fifo", "/dev/full", "/dev/null", "long", "folder",
                                 "under-a-file"])
def test_a_path_that_is_not_a_writable_file_is_refused_before_any_request(
        option, bad, fake, fifo, tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("x")
    path = {"fifo": str(fifo), "long": str(tmp_path / LONG), "folder": str(tmp_path),
            "under-a-file": str(tmp_path / "file" / "out.txt")}.get(bad, bad)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"_id": "1", "text": "a"}\n')
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("1 0 d 1\n")
    argv = (["show", "code", "--trace", path] if option == "--trace" else
            ["eval", "code", "--queries", str(queries), "--qrels", str(qrels), "--run-out",
             path])
    code, _out, err = _no_hang(argv, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {option} ") and "qidf bug" not in err
    assert fake.calls == []
    if bad == "long":
        assert "300 bytes long" in err and "at most 255" in err


def test_sweep_plot_in_a_format_matplotlib_does_not_write(fake, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    code, _, err = run(["sweep", "code", "--queries", "q", "--qrels", "r", "--plot",
                        str(tmp_path / "curve.xyz")], capsys, monkeypatch)
    assert code == 2 and ".xyz is not a picture format" in err and fake.calls == []


@pytest.mark.parametrize("bad", ["/dev/full", "fifo", "long"])
def test_sweep_plot_refused_before_the_sweep_leaves_the_mapping_alone(
        bad, fake, fifo, tmp_path, capsys, monkeypatch):
    """Issue 33: a bad --plot was noticed after the sweep ran, and left "_meta": {}."""
    pytest.importorskip("matplotlib")
    path = {"fifo": str(fifo), "long": str(tmp_path / (LONG + ".png"))}.get(bad, bad)
    mapping = dict(fake.mapping)
    code, _, err = _no_hang(["sweep", "code", "--queries", "q", "--qrels", "r", "--plot",
                             path], capsys, monkeypatch)
    assert code == 2 and err.startswith("error: --plot ") and fake.calls == []
    assert fake.mapping == mapping and "_meta" not in fake.mapping


def test_the_check_leaves_no_trace(tmp_path):
    target = tmp_path / "new" / "file.json"
    with pytest.raises(UsageError, match=r"the folder .* does not exist"):
        outfile.check(target, "--out")  # a writer that makes no folder: refused now
    assert outfile.check(target, "--plot", folders=True) == target
    assert not (tmp_path / "new").exists()
    here = tmp_path / "here.json"
    outfile.check(here, "--out")
    assert not here.exists()


class FillingFile:
    """A trace file on a disk that fills after ``room`` lines."""

    def __init__(self, room: int) -> None:
        self.room, self.lines = room, []

    def write(self, text: str) -> int:
        if len(self.lines) >= self.room:
            raise OSError(errno.EFBIG, "File too large")
        self.lines.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("room", [6, 8, 22, 23, 24, 25, 26, 28, 30, 32])
def test_a_trace_that_fills_in_the_middle_of_a_change(room, fake, tmp_path, capsys,
                                                     monkeypatch):
    """The request in hand was sent; its line cannot be written: the command stops with
    one line naming the file (exit 2), and the change is settled, not left half-made.
    ``room``: the lines that fit, so that the line that does not is every few requests of
    an apply (the lease, the scratch index, the journal, the close, the settings, the
    open, the record)."""
    trace = FillingFile(room)
    monkeypatch.setattr(outfile, "open_append", lambda path, option: trace)
    before = fake.similarity()
    code, _, err = run(["apply", "code", "--q", "0.3", "--trace", str(tmp_path / "t.jsonl")],
                       capsys, monkeypatch)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"error: --trace {tmp_path / 't.jsonl'}: cannot write to it "
                                "(File too large)"), err
    assert "qidf bug" not in err and len(trace.lines) == room
    assert fake.status == "open"
    after = fake.similarity()
    assert after == before or after.get("type") == "scripted"  # settled: one end or the other
    journaled = "journal:code" in fake.state_docs()  # abandoned between two journal writes
    assert set(fake.state_docs()) <= {"journal:code"}  # the lease is released either way
    if 23 <= room <= 30 and not journaled:  # the index was closed or changed meanwhile
        assert "rolled back" in err or "completed anyway" in err, err
    code, _, err = run(["apply", "code", "--q", "0.3"], capsys, monkeypatch)
    assert code == 0, err  # the next command recovers what was left, then goes ahead
    assert fake.state_docs() == {} and fake.status == "open"
    assert fake.similarity().get("type") == "scripted"
    if journaled:
        assert "interrupted apply of code" in err, err


def test_a_config_file_nested_too_deep_is_one_line(tmp_path, capsys, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[clusters.p]\nurl = "http://127.0.0.1:9200"\nx = ' + "[" * 5000
                      + "]" * 5000 + "\n")
    monkeypatch.setenv("QIDF_CONFIG", str(config))
    code, _, err = run(["profiles", "list"], capsys, monkeypatch)
    assert code == 2 and err == (f"error: {config}: nested deeper than qidf reads (at most "
                                 "64 tables and arrays inside each other)\n")


@pytest.mark.parametrize(("line", "said"), [
    ("timeout = -1", "timeout must be between 0.001 and 86400, got -1"),
    ("timeout = 0", "timeout must be between 0.001 and 86400, got 0"),
    ("retries = 99", "retries must be between 0 and 10, got 99"),
    ("retries = [[[1]]]", "retries must be an integer, got [[[1]]]"),
])
def test_a_profile_value_out_of_range_names_the_file_and_key(line, said, tmp_path, capsys,
                                                              monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text(f'[clusters.p]\nurl = "http://127.0.0.1:9200"\n{line}\n')
    monkeypatch.setenv("QIDF_CONFIG", str(config))
    code, _, err = run(["show", "code", "--profile", "p"], capsys, monkeypatch)
    assert code == 2 and err == f"error: {config}: [clusters.p]: {said}\n"


def test_an_empty_profile_name_is_an_error_not_the_default_cluster(fake, capsys, monkeypatch):
    code, _, err = run(["show", "code", "--profile", ""], capsys, monkeypatch)
    assert code == 2 and "--profile is empty" in err and fake.calls == []
