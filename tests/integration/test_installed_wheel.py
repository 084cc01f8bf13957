"""qidf as a user gets it, by the README's own install commands, run as written.

The commands come from the README's install section (the site's home page includes the same
lines), so the instructions cannot drift from what works. The only thing changed is where the
clone comes from: the `git clone` line names the public repository, and the test copies this
checkout's files instead (tracked and untracked, as a clone with the work in progress would
hold them). Then, each in a fresh virtualenv and from an empty folder, so that nothing of this
checkout can be imported by accident:

- the clone block: a virtualenv in the clone, `pip install .`, the extras, `qidf --version`;
- the wheel block: a wheel built in the clone, installed with extras on "another machine"
  (a second virtualenv that sees only `dist/`), which then runs the demo and eval against the
  real engine; the wheel holds the demo corpus and none of the research.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from qidf_ctl import __version__
from qidf_ctl.evaluation import files

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
CLONE_LINE = re.compile(r"git clone (\S+) && cd (\S+)")
PUBLIC_REPOSITORY = "https://github.com/qidf/qidf.git"


def install_blocks() -> list[list[str]]:
    """The `bash` blocks of the README's install section (between its snippet markers): their
    command lines."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("[start:install]", 1)[1].split("[end:install]", 1)[0]
    blocks = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    return [[line for line in block.splitlines() if line.strip() and not line.startswith("#")]
            for block in blocks]


def _user_env(activate: Path | None = None) -> dict[str, str]:
    """A shell as a user has it: none of this test run's virtualenv; ``activate``'s first on
    PATH when given (a virtualenv that the previous block activated)."""
    own = str(Path(sys.prefix) / "bin")
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != own]
    if activate is not None:
        path.insert(0, str(activate / "bin"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return {**env, "PATH": os.pathsep.join(path)}


def _run(lines: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = "\n".join(lines)
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{script}\n-> exit {done.returncode}\n{done.stderr[-3000:]}"
    return done


def _copy_checkout(dest: Path) -> None:
    """This checkout's files, as `git clone` of it (with the work in progress) would hold."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The clone block, run as written after its `git clone` line: returns the clone, whose
    `.venv` the block created and installed into."""
    first, *rest = install_blocks()[0]
    found = CLONE_LINE.fullmatch(first)
    assert found and found.group(1) == PUBLIC_REPOSITORY, first
    where = tmp_path_factory.mktemp("user")
    clone = where / found.group(2)
    _copy_checkout(clone)
    done = _run(rest, clone, _user_env())
    assert done.stdout.strip().splitlines()[-1] == f"qidf {__version__}"
    return clone


@pytest.fixture(scope="module")
def wheel_block() -> tuple[str, str]:
    build, install = install_blocks()[1]
    assert "pip wheel" in build and install.startswith("pip install"), (build, install)
    return build, install


@pytest.fixture(scope="module")
def wheel(clone, wheel_block) -> Path:
    _run([wheel_block[0]], clone, _user_env(activate=clone / ".venv"))
    (path,) = (clone / "dist").glob("qidf-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel, wheel_block, tmp_path_factory) -> Path:
    """Another machine: a fresh virtualenv, `dist/` copied beside it, the wheel's line run."""
    machine = tmp_path_factory.mktemp("machine")
    shutil.copytree(wheel.parent, machine / "dist")
    env = machine / "v"
    subprocess.run([_user_python(), "-m", "venv", str(env)], check=True, timeout=120)
    _run([wheel_block[1]], machine, _user_env(activate=env))
    return env


def _user_python() -> str:
    found = shutil.which("python3", path=_user_env()["PATH"])
    assert found, "no python3 on PATH outside this test run's virtualenv"
    return found


def _imports(venv: Path, *modules: str) -> None:
    done = subprocess.run([str(venv / "bin" / "python"), "-c", f"import {', '.join(modules)}"],
                          capture_output=True, text=True, timeout=120, cwd=venv)
    assert done.returncode == 0, done.stderr


def test_install_from_a_clone_gives_qidf_and_the_extras(clone):
    _imports(clone / ".venv", "qidf_ctl", "elasticsearch", "mcp")


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


def test_the_wheel_installs_with_its_extras_elsewhere(venv):
    _imports(venv, "elasticsearch", "mcp")


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
