"""The README's first command and what it prints next, as a newcomer runs them: a fresh
`./scripts/demo.sh` on its own local engine, then every command the demo printed, verbatim,
in a shell that knows nothing else (no QIDF_* variable, qidf not on PATH, another folder).
Each exits 0 and does what its comment says; `predict` with the demo's queries gives the q
the demo's table marks, `sweep` recommends the q the demo said it would and `apply`
installs, `search` shows the installed ranking beside BM25's, and the `mcp` server (its
stdin closed, as a client that goes away) ranks with what is installed: each read from the
outputs (never a number written here). The setup prints no BuildBackendWarning.

Costs an engine start, the demo at 200 queries and a 6-point sweep: 3.6 minutes measured on
2 shared cores at load 17 (not measured on a quiet machine).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import TEST_PORT

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
DEMO_PORT = int(os.environ.get("QIDF_TEST_DEMO_PORT", TEST_PORT + 2))
QUERIES = "200"


def _clean_env(venv_bin: Path) -> dict[str, str]:
    """The newcomer's shell: no QIDF_* settings (QIDF_HOME kept: where engines live here),
    and the virtualenv's bin folder not on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("QIDF_") or k in ("QIDF_HOME", "QIDF_JAVA_HOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != venv_bin.resolve())
    return env


def _next_commands(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Next, on this index"))
    block = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        block.append(line.strip())
    return block


def _table_q(text: str) -> float:
    """The q of the demo table's row marked (qidf predict) (BM25's row: q = 1)."""
    row = next(line for line in text.splitlines() if "(qidf predict)" in line
               and line.startswith("│"))
    found = re.search(r"q-log q=([0-9.]+)", row)
    return float(found.group(1)) if found else 1.0


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    venv_bin = Path(sys.executable).parent
    env = _clean_env(venv_bin)
    env.update(QIDF_ENGINE_PORT=str(DEMO_PORT), QIDF_VENV=str(venv_bin.parent))
    try:
        done = subprocess.run([str(ROOT / "scripts" / "demo.sh"), "--queries", QUERIES],
                              capture_output=True, text=True, env=env, timeout=1800,
                              cwd=tmp_path_factory.mktemp("newcomer"))
        yield done, env
    finally:
        subprocess.run([str(venv_bin / "qidf"), "engine", "stop", "--port", str(DEMO_PORT)],
                       capture_output=True, timeout=300, env=env)


def test_every_printed_command_runs_as_printed(demo_run, tmp_path):
    done, env = demo_run
    env = {k: v for k, v in env.items() if k not in ("QIDF_ENGINE_PORT", "QIDF_VENV")}
    assert done.returncode == 0, done.stderr[-2000:]
    commands = _next_commands(done.stdout)
    verbs = [c.split("#")[0].split()[1] for c in commands]
    assert verbs == ["predict", "sweep", "apply", "search", "show", "mcp", "revert", "engine"], \
        commands
    assert "BuildBackendWarning" not in done.stdout + done.stderr
    qidf = commands[0].split()[0]
    assert Path(qidf).is_absolute() and os.access(qidf, os.X_OK)  # not on PATH: its path
    assert f"source {Path(qidf).parent / 'activate'}" in done.stdout
    url = f"http://127.0.0.1:{DEMO_PORT}"
    assert all(f"--url {url}" in c for c in commands[:7])
    assert commands[-1].startswith(f"{qidf} engine stop --port {DEMO_PORT}")
    expected_q = _table_q(done.stdout)

    results = {}
    for command in commands:
        ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=1800, stdin=subprocess.DEVNULL)
        assert ran.returncode == 0, (command, ran.stderr[-2000:])
        results[command.split("#")[0].split()[1]] = ran

    predicted = re.search(r": q = ([0-9.]+) \(predictor", results["predict"].stdout)
    assert predicted and float(predicted.group(1)) == pytest.approx(expected_q, abs=0.005)

    sweep = results["sweep"].stdout
    assert re.search(r"baseline \(.*BM25.*\): NDCG@10 0\.\d{4}", sweep)
    assert len(re.findall(r"^  q = [0-9.]+ +NDCG@10 0\.\d{4}", sweep, re.M)) >= 6
    plot = Path(re.search(r"^plot: (.+)$", sweep, re.M).group(1))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    said = re.search(r"`qidf sweep` recommends: (?:install q ([0-9.]+)|BM25 stays)",
                     " ".join(done.stdout.split()))
    assert said, done.stdout[-3000:]
    recommended = re.search(r"recommended: (?:install q ([0-9.]+)|BM25 stays)",
                            " ".join(sweep.split()))
    assert recommended and recommended.group(1) == said.group(1)  # the demo and sweep agree
    installed = float(said.group(1)) if said.group(1) else expected_q

    shown = results["show"].stdout
    if installed < 1:
        assert f"q-log BM25 q={installed:g} " in results["apply"].stdout
        assert f"q-log BM25 q={installed:g} " in shown
        assert "restored built-in default similarity" in results["revert"].stdout
        searched = " ".join(results["search"].stdout.split())
        assert f"q-log BM25 q={installed:g}" in searched and ", as installed" in searched
        assert "vs " in searched and "BM25" in searched and " rank " in f" {searched} "
        served = results["mcp"].stderr
        assert f"installed, q={installed:g}:" in served and "serving MCP on stdio" in served
    else:  # q = 1: apply changed nothing, and there is nothing to revert
        assert "BM25" in shown and "q-log" not in shown
    assert "stopped" in results["engine"].stdout
    status = subprocess.run([qidf, "engine", "status", "--port", str(DEMO_PORT)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert status.returncode == 3  # not running: engine stop did what it said


def test_the_demo_left_its_files_where_it_said(demo_run):
    done, _ = demo_run
    assert done.returncode == 0
    said = re.search(r"judgements are in (\S+) and (\S+)\.", done.stdout.replace("\n", " "))
    queries, qrels = Path(said.group(1)), Path(said.group(2))
    assert sum(1 for _ in queries.open()) == int(QUERIES)
    assert sum(1 for _ in qrels.open()) >= int(QUERIES)
