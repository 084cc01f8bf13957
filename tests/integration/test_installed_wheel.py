"""qidf as a user gets it: a wheel built from this checkout, installed (not editable) into a
fresh virtualenv, runs --version, the demo and eval against the real engine; the wheel
holds the demo corpus and none of the research."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from qidf_ctl import __version__
from qidf_ctl.evaluation import files

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(ROOT)], check=True, timeout=300)
    (path,) = out.glob("qidf-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    env = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=120)
    subprocess.run([str(env / "bin" / "pip"), "install", "-q", str(wheel)], check=True,
                   timeout=600)
    return env


def test_wheel_has_the_demo_corpus_and_no_research(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "qidf_ctl/demo/data/go-stdlib.jsonl.gz" in names
    assert "qidf_ctl/demo/data/LICENSE-go" in names
    assert not [n for n in names if "qidf_research" in n or "/corpora/" in n]
    assert any(n.endswith("METADATA") for n in names)
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("METADATA"))).decode()
    assert f"Version: {__version__}" in metadata
    assert "Provides-Extra: elasticsearch" in metadata


def _qidf(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # From an empty folder, so nothing of this checkout can be imported by accident.
    return subprocess.run([str(venv / "bin" / "qidf"), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_installed_qidf_runs_version_demo_and_eval(venv, engine_url, tmp_path):
    version = _qidf(venv, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"qidf {__version__}"
    demo = _qidf(venv, "demo", "--url", engine_url, "--queries", "100", "--mode", "script",
                 "--json", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    result = json.loads(demo.stdout)
    assert result["documents"] > 10_000 and result["queries"] == 100
    bm25, *qlog = result["rows"]
    assert max(r["ndcg10"] for r in qlog) > bm25["ndcg10"]

    from qidf_ctl.demo import load_task

    task = load_task(max_queries=100)
    queries, qrels = tmp_path / "q.jsonl", tmp_path / "qrels.trec"
    files.write_queries(task.queries, queries)
    files.write_qrels(task.qrels, qrels)
    ev = _qidf(venv, "eval", result["index"], "--queries", str(queries), "--qrels",
               str(qrels), "--url", engine_url, "--json", cwd=tmp_path)
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["mean"]["NDCG@10"] == pytest.approx(bm25["ndcg10"], abs=1e-9)
