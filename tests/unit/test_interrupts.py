"""SIGINT and SIGTERM end the process cleanly at every point (qidf_ctl/interrupts.py): at once
while reading, after the step in flight during a change, and once the change is made, only
after its result is printed; always exit 130, never the default death (status 143)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from qidf_ctl import interrupts
from qidf_ctl.cluster import Cluster
from qidf_ctl.install import clone_swap, settle
from qidf_ctl.similarity import parse, unflatten

from .fake_cluster import FakeEngine, fake_cluster
from .test_cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cli_handlers():
    interrupts.install()
    yield
    interrupts.uninstall()


def _term() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def test_outside_a_change_a_signal_interrupts_at_once(cli_handlers):
    with pytest.raises(KeyboardInterrupt):
        _term()
        time.sleep(1)


def test_during_a_change_the_first_signal_waits_and_the_second_stops(cli_handlers):
    with interrupts.deferred():
        _term()
        assert interrupts.received() == signal.SIGTERM
        with pytest.raises(KeyboardInterrupt):
            _term()
            time.sleep(1)


def test_once_the_change_is_made_signals_wait_for_the_exit(cli_handlers):
    interrupts.hold_when_changed()
    with interrupts.deferred():
        assert interrupts.hold()
    _term()  # printing the result: nothing is raised
    _term()
    assert interrupts.held_signal() == "SIGTERM"
    assert interrupts.finish(0) == 130 and interrupts.finish(2) == 2


def test_a_command_that_does_not_hold_is_interrupted_after_a_change():
    """sweep: its installs are steps of a measurement, so a signal ends it."""
    interrupts.install()
    try:
        with interrupts.deferred():
            assert not interrupts.hold()
        with pytest.raises(KeyboardInterrupt):
            _term()
            time.sleep(1)
    finally:
        interrupts.uninstall()


def test_a_library_caller_gets_its_handlers_back():
    def mine(signum, frame):
        raise RuntimeError("mine")

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with interrupts.deferred():
            assert signal.getsignal(signal.SIGTERM) is not mine
        assert signal.getsignal(signal.SIGTERM) is mine
        assert not interrupts.hold()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _state(engine: FakeEngine) -> str:
    sim = engine.similarity("code")
    return "new" if sim and parse(unflatten(sim)).kind == "qlog" else "old"


@pytest.mark.parametrize("strategy", ["close", "clone"])
def test_sigterm_before_every_request_of_apply_through_the_cli(strategy, capsys, monkeypatch):
    """The CLI's own handler: whenever the change was made its result line is printed, and
    the exit is 130 either way."""
    monkeypatch.setattr(settle, "RETRY_S", 0)
    monkeypatch.setattr(clone_swap, "GRACE_S", 0)
    probe = FakeEngine()
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, s: fake_cluster(probe)))
    assert run(["apply", "code", "--q", "0.3", "--strategy", strategy], capsys,
               monkeypatch)[0] == 0
    total = len(probe.calls)
    ends = set()
    for k in range(total):
        engine = FakeEngine()
        count = {"n": 0}

        def term(method, path, body, k=k, count=count):
            count["n"] += 1
            if count["n"] == k + 1:
                _term()

        engine.before = term
        monkeypatch.setattr(Cluster, "connect",
                            classmethod(lambda cls, s, engine=engine: fake_cluster(engine)))
        code, out, err = run(["apply", "code", "--q", "0.3", "--strategy", strategy], capsys,
                             monkeypatch)
        end = _state(engine)
        ends.add(end)
        assert code == 130, (k, err)
        assert "Traceback" not in out + err and "unexpected" not in err
        if end == "new":
            assert "code: installed q-log" in out, (k, out, err)
        else:
            assert "installed" not in out and err.strip().splitlines()[-1].startswith(
                "error: interrupted"), (k, err)
        assert engine.concrete("code").status == "open"
    assert ends == {"old", "new"}


def _wait_for_handler(pid: int, signum: int, timeout: float = 60.0) -> None:
    """Until the process catches ``signum`` (the SigCgt mask of /proc/PID/status)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as status:
                caught = next(int(line.split()[1], 16) for line in status
                              if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return  # exited already, or no /proc: the signal finds what it finds
        if caught & (1 << (signum - 1)):
            return
        time.sleep(0.005)
    raise AssertionError(f"process {pid} set no handler for signal {signum} in {timeout} s")


@pytest.mark.parametrize("delay", [0.3, 0.5, 0.8, 1.2])
def test_a_sigterm_while_the_cli_starts_is_exit_130_never_143(delay):
    """The handler is set before the imports (qidf_ctl.entry): a SIGTERM during them, or at
    any later point of a command, ends in 0 (done before it came) or 130 with one line.
    (Before the interpreter has run any of qidf nothing can catch a signal: the delays count
    from the moment the handler is set, 0 to 0.9 s into the imports.)"""
    proc = subprocess.Popen([sys.executable, "-m", "qidf_ctl", "render", "--q", "0.3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    # On a loaded machine the interpreter alone can take longer than the shortest delay:
    # the delays count from the moment qidf's handler is set (before its imports).
    _wait_for_handler(proc.pid, signal.SIGTERM)
    time.sleep(delay - 0.3)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130), (proc.returncode, err, _out)
    if proc.returncode == 130:
        assert err.strip().splitlines()[-1] == "error: interrupted", err
    assert "Traceback" not in err


def test_nothing_reads_stdin():
    """A command whose standard input never ends (a terminal, a CI job's open pipe) is not
    waiting on it: no prompt, and subprocesses get /dev/null."""
    proc = subprocess.Popen([sys.executable, "-m", "qidf_ctl", "render", "--q", "0.3"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        _out, err = proc.communicate(timeout=60)  # stdin stays open until communicate ends
    finally:
        proc.kill()
    assert proc.returncode == 0, err


def test_every_subprocess_is_given_its_stdin():
    import ast
    from pathlib import Path

    missing = []
    for path in sorted(Path(ROOT, "qidf_ctl").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("run", "Popen", "call", "check_call", "check_output") \
                    and getattr(node.func.value, "id", "") == "subprocess" and \
                    not any(k.arg in ("stdin", "input") for k in node.keywords):
                missing.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Name) and node.id == "input":
                missing.append(f"{path.name}:{node.lineno} input()")
            if isinstance(node, ast.Attribute) and node.attr in ("prompt", "getpass", "stdin"):
                if (path.name, node.attr) in SERVED_ON_STDIN:
                    continue
                missing.append(f"{path.name}:{node.lineno} {node.attr}")
    assert missing == []


# Files that look at stdin without reading it: qidf mcp's protocol channel (whether there is
# one to serve on; the SDK reads it).
SERVED_ON_STDIN = {("mcp.py", "stdin")}



def test_cleanup_runs_although_a_signal_led_there(cli_handlers):
    """A sweep interrupted gives the index its similarity back: the revert it runs must not
    be refused for the signal that interrupted the sweep."""
    with pytest.raises(KeyboardInterrupt):
        _term()
        time.sleep(1)
    assert interrupts.received() == signal.SIGTERM
    with interrupts.cleanup():
        assert interrupts.received() is None  # so the restore's check_signal lets it run
        _term()  # a new signal waits too
        assert interrupts.received() == signal.SIGTERM
    assert interrupts.received() == signal.SIGTERM


def test_a_server_ended_by_its_signal_exits_0(cli_handlers):
    """``qidf mcp`` is stopped with Ctrl-C or SIGTERM: that is its normal end, not 130."""
    with pytest.raises(KeyboardInterrupt):
        _term()
        time.sleep(1)
    assert interrupts.finish(0) == 130
    interrupts.ended_as_meant()
    assert interrupts.finish(0) == 0
