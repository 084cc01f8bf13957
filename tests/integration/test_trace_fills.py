"""A ``--trace`` file that fills while a change is under way (issue 33 item 5), on the real
engine: ``qidf apply`` runs as a process whose file-size limit (RLIMIT_FSIZE, what a full
disk or a quota looks like to a writer) stops the trace right when the index is closed. The
command stops with one line naming the file (exit 2, never "a qidf bug"), the index is open
again, and the next qidf command finds nothing half-made: it recovers what was journaled and
the change can be made."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import index_path
from qidf_ctl.errors import ClusterError

pytestmark = pytest.mark.integration

INDEX = "qidf-trace-fills"


def _qidf(url: str, *argv: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def fsize() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {k: v for k, v in os.environ.items() if not k.startswith("QIDF_")}
    env.update({"QIDF_RETRIES": "0", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    return subprocess.run([sys.executable, "-m", "qidf_ctl", *argv, "--url", url],
                          capture_output=True, text=True, env=env, timeout=600,
                          preexec_fn=fsize if limit is not None else None)


@pytest.fixture
def index(cluster):
    try:
        cluster.request("DELETE", index_path(INDEX))
    except ClusterError as exc:
        if exc.status != 404:
            raise
    cluster.request("PUT", index_path(INDEX), {
        "settings": {"number_of_shards": 1, "number_of_replicas": 0},
        "mappings": {"properties": {"text": {"type": "text"}}}})
    cluster.request("POST", index_path(INDEX, "_doc"), {"text": "func handleUpgrade conn"},
                    {"refresh": "true"})
    yield INDEX
    cluster.request("DELETE", index_path(INDEX))


def test_a_trace_that_fills_while_the_index_is_closed(cluster, engine_url, index, tmp_path):
    full = tmp_path / "full.jsonl"
    done = _qidf(engine_url, "apply", index, "--q", "0.3", "--trace", str(full))
    assert done.returncode == 0, done.stderr
    assert _qidf(engine_url, "revert", index).returncode == 0
    text = full.read_text()
    close = next(i for i, line in enumerate(text.splitlines(keepends=True))
                 if json.loads(line)["path"] == f"/{index}/_close")
    offset = sum(len(line.encode()) for line in text.splitlines(keepends=True)[:close])

    trace = tmp_path / "filling.jsonl"
    stopped = _qidf(engine_url, "apply", index, "--q", "0.3", "--trace", str(trace),
                    limit=offset + 40)  # the close line is the one that does not fit
    lines = stopped.stderr.strip().splitlines()
    assert stopped.returncode == 2, stopped.stderr
    assert lines[-1].startswith(f"error: --trace {trace}: cannot write to it (File too "
                                "large)"), stopped.stderr
    assert "qidf bug" not in stopped.stderr and "Traceback" not in stopped.stderr
    assert trace.stat().st_size <= offset + 40
    shown = install.show(cluster, index)
    assert shown["status"] == "open", shown

    again = _qidf(engine_url, "apply", index, "--q", "0.3", "--json")
    assert again.returncode == 0, again.stderr
    after = install.show(cluster, index)
    assert after["status"] == "open" and after["kind"] == "qlog" and after["interrupted"] is None
