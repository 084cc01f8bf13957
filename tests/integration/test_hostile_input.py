"""Issue 28 on a real engine: a data stream measured (it exited 7, "retry"), a sweep stopped
by SIGTERM gives the index its similarity back, and the engine started as root from a home
`mktemp -d` made (it ended in "unexpected PermissionError")."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import files, indexing
from tests.consistency import assert_consistent, snapshot

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
STREAM = "qidf-it-stream"
SWEPT = "qidf-it-swept"
HOME_PORT = int(os.environ.get("QIDF_TEST_PORT", "9250")) + 3


def _qidf(*args: str, env: dict[str, str] | None = None, timeout: float = 600
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qidf_ctl", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env or dict(os.environ), timeout=timeout)


@pytest.fixture
def data_stream(cluster):
    cluster.request("PUT", f"/_index_template/{STREAM}", {
        "index_patterns": [f"{STREAM}*"], "data_stream": {}, "template": {
            "mappings": {"properties": {"message": {"type": "text"}}}}})
    for i, text in enumerate(["handleWebSocketUpgrade upgrades the connection",
                              "func (b *Buffer) Grow(n int) { b.grow(n) }", "plain prose"]):
        cluster.request("POST", f"/{STREAM}/_doc", {"@timestamp": f"2026-01-0{i + 1}T00:00:00Z",
                                                     "message": text}, {"refresh": "true"})
    yield STREAM
    cluster.request("DELETE", f"/_data_stream/{STREAM}")
    cluster.request("DELETE", f"/_index_template/{STREAM}")


def test_stats_and_predict_on_a_data_stream(data_stream, engine_url):
    """The df lookups' artificial documents get the stream's timestamp field; before, the
    engine's 500 mapper_parsing_exception ended the command with exit 7 ("retry")."""
    for command in ("stats", "predict"):
        done = _qidf(command, data_stream, "--url", engine_url, "--json")
        assert done.returncode == 0, done.stderr
    refused = _qidf("apply", data_stream, "--q", "0.3", "--url", engine_url)
    assert refused.returncode == 6 and "data stream" in refused.stderr


def _has_qlog(cluster) -> bool:
    settings = cluster.request("GET", f"/{SWEPT}/_settings", params={
        "flat_settings": "true"})[SWEPT]["settings"]
    return "index.similarity.default.type" in settings


def test_a_sigterm_during_a_sweep_gives_the_index_its_similarity_back(cluster, engine_url,
                                                                      go_task, tmp_path):
    indexing.create_index(cluster, SWEPT, analyzer="standard", shards=1)
    indexing.bulk_index(cluster, SWEPT, dict(list(go_task.corpus.items())[:1500]))
    try:
        indexed = set(list(go_task.corpus)[:1500])
        judged = [q for q in go_task.queries if set(go_task.qrels[q]) & indexed]
        queries = {q: go_task.queries[q] for q in judged[:30]}
        files.write_queries(queries, tmp_path / "q.jsonl")
        files.write_qrels({q: go_task.qrels[q] for q in queries}, tmp_path / "r.qrels")
        before = snapshot(cluster, SWEPT)
        proc = subprocess.Popen(
            [sys.executable, "-m", "qidf_ctl", "sweep", SWEPT, "--queries",
             str(tmp_path / "q.jsonl"), "--qrels", str(tmp_path / "r.qrels"), "--grid",
             "0.1:1.5:0.1", "--reference", "none", "--url", engine_url],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not _has_qlog(cluster):
            time.sleep(0.2)  # until the sweep has installed its first q
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("error: interrupted"), err
        assert "Traceback" not in err
        assert install.show(cluster, SWEPT)["kind"] == "builtin"
        assert_consistent(cluster, SWEPT, before, before.similarity, before.similarity)
    finally:
        cluster.request("DELETE", f"/{SWEPT}", None, {"ignore_unavailable": "true"})


@pytest.mark.skipif(os.geteuid() != 0, reason="as root, qidf starts the node as nobody")
def test_the_engine_as_root_never_widens_a_folder_above_its_home(tmp_path):
    """`mktemp -d` makes a 0700 folder of root's. A home under it: one line naming the folder
    and the chmod to run, exit 2, and nothing changed (issue 33: qidf used to widen it to
    0705, which for a home under root's own home folder opens that folder to everyone).
    After that chmod the node starts, as nobody with nobody's own group; a folder another
    user owns is refused the same way."""
    base = Path(tempfile.mkdtemp(prefix="qidf-home-"))  # drwx------ root
    env = {**os.environ, "QIDF_HOME": str(base / "qidf")}
    port = str(HOME_PORT)
    try:
        refused = _qidf("engine", "start", "--port", port, env=env)
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(lines) == 1, refused.stderr
        assert f"cannot enter {base} (drwx------" in lines[0]
        assert f"chmod o+x {base}" in lines[0] and "QIDF_HOME" in lines[0]
        assert stat.S_IMODE(base.stat().st_mode) == 0o700 and not (base / "qidf").exists()
        base.chmod(0o701)  # what the line says
        started = _qidf("engine", "start", "--port", port, "--json", env=env, timeout=900)
        assert started.returncode == 0, started.stderr
        assert stat.S_IMODE(base.stat().st_mode) == 0o701
        assert _qidf("engine", "stop", "--port", port, env=env).returncode == 0
        theirs = base / "theirs"
        theirs.mkdir()
        os.chown(theirs, 1, 1)
        theirs.chmod(0o700)
        env["QIDF_HOME"] = str(theirs / "qidf")
        refused = _qidf("engine", "start", "--port", port, env=env)
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(lines) == 1, refused.stderr
        assert f"chmod o+x {theirs}" in lines[0] and "unexpected" not in lines[0]
        assert not (theirs / "qidf").exists()
    finally:
        _qidf("engine", "stop", "--port", port, env={**os.environ,
                                                    "QIDF_HOME": str(base / "qidf")})
        shutil.rmtree(base, ignore_errors=True)


def test_a_reader_that_goes_away_leaves_no_traceback():
    """`qidf render | head -c 1`: stdout closes early; the process still ends in one piece
    (it leaves through os._exit after a flush that may fail)."""
    done = subprocess.run(f"{sys.executable} -m qidf_ctl render --q 0.3 | head -c 1",
                          shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "Traceback" not in done.stderr and done.stdout == "{"
