"""Running qidf as a separate process with a fault planned (``QIDF_FAULT``, test-only), and
killing or restarting the engine under it: the pieces of the fault tests and the fault matrix.

Every fault case is: a real index of real documents, a snapshot, one ``qidf apply``/``revert``
stopped at a step (SIGKILL, SIGTERM, or the node killed while qidf is paused there), then the
next qidf command, then ``consistency.assert_consistent``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.engine import process as local_engine
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.install import clone_swap, close_swap
from qidf_ctl.install.mode import choose_mode
from qidf_ctl.similarity import Mode, QlogParams, flatten, similarity_value
from tests.consistency import Snapshot, snapshot

ROOT = Path(__file__).resolve().parents[1]
CLOSE_POINTS = ["leased", "scratch", "journaled", *close_swap.STEPS, "opened.logged",
                "recorded.logged"]
CLONE_POINTS = ["leased", "scratch", "journaled", *clone_swap.STEPS, "swapped.logged",
                "recorded.logged", "retired.logged"]


def points(strategy: str, operation: str = "apply") -> list[str]:
    """Where a fault can be planned; revert validates nothing, so it has no scratch index."""
    found = CLOSE_POINTS if strategy == "close" else CLONE_POINTS
    return [p for p in found if operation == "apply" or p != "scratch"]


def qidf_argv(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "qidf_ctl", *args, "--url", url]


def command(url: str, operation: str, index: str, strategy: str, q: float,
            mode: str = "auto", stats: str | None = None) -> list[str]:
    if operation == "apply":
        return qidf_argv(url, "apply", index, "--q", str(q), "--mode", mode,
                         "--strategy", strategy, *(["--stats", stats] if stats else []))
    return qidf_argv(url, "revert", index, "--strategy", strategy)


def auto_mode(cluster: Cluster) -> Mode:
    """The mode ``--mode auto`` picks on this cluster (the plugin where every data node has
    it; Painless otherwise): Elasticsearch from Maven Central has no Painless."""
    return choose_mode(cluster, "auto")[0]


def new_similarity(cluster: Cluster, q: float) -> dict[str, Any]:
    """The settings ``qidf apply --q q --mode auto`` installs on this cluster."""
    return flatten(similarity_value(QlogParams(q), auto_mode(cluster),
                                    cluster.engine.default_is_legacy_bm25))


def prepare(cluster: Cluster, name: str, operation: str, strategy: str, q: float
            ) -> tuple[Snapshot, dict[str, Any], dict[str, Any]]:
    """Put ``name`` in the starting state of ``operation`` (built-in for apply, q-log 0.3 for
    revert); (its snapshot, the settings it has, those the operation installs)."""
    shown = install.show(cluster, name)
    if operation == "apply" and shown["kind"] != "builtin":
        install.revert(cluster, name, strategy=strategy)
    if operation == "revert" and shown["kind"] != "qlog":
        install.apply(cluster, name, QlogParams(0.3), strategy=strategy, mode=auto_mode(cluster))
    before = snapshot(cluster, name)
    if operation == "apply":
        new = new_similarity(cluster, q)
    else:
        new = dict((install.show(cluster, name)["record"] or {}).get("previous", {}))
    return before, before.similarity, new


def env(fault: str | None = None) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k != "QIDF_FAULT"}
    out["QIDF_STEP_TIMEOUT"] = out.get("QIDF_STEP_TIMEOUT", "120")
    if fault:
        out["QIDF_FAULT"] = fault
    return out


def run(argv: list[str], fault: str | None = None, timeout: float = 300) -> \
        subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env(fault), capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@dataclass
class Paused:
    """A qidf process stopped by a ``STOP`` fault (SIGSTOP to itself) at a step."""

    proc: subprocess.Popen[str]

    def cont(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)

    def wait(self, timeout: float = 300) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err


def _stopped(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def start_paused(argv: list[str], point: str, timeout: float = 300) -> Paused | None:
    """Start qidf with ``point:STOP``; None when it finished without reaching the point."""
    proc = subprocess.Popen(argv, env=env(f"{point}:STOP"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _stopped(proc.pid):
            return Paused(proc)
        if proc.poll() is not None:
            proc.communicate()
            return None
        time.sleep(0.05)
    proc.kill()
    raise TimeoutError(f"qidf did not reach {point} within {timeout}s")


def kill_node(cfg: EngineConfig) -> int:
    """SIGKILL the engine's JVM by its recorded pid (only the node this test started)."""
    record = local_engine.read_record(cfg)
    assert record is not None, "no node record"
    os.kill(record.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{record.pid}").exists():
        with contextlib.suppress(ChildProcessError):
            os.waitpid(record.pid, os.WNOHANG)
        time.sleep(0.1)
    return record.pid


def restart_node(cfg: EngineConfig) -> None:
    local_engine.start(cfg, timeout_s=300)
