"""docs/tutorial/your-index.md, run as written on a two-field index on the real engine.

The index, ``code-search``, is one document per function of the shipped Go corpus with two
text fields, ``code`` and ``doc`` (tests/support/two_fields.py); the queries are function
signatures and their judgements the function's document. Every ```bash block of the page
runs in order, command by command, verbatim (a profile ``prod`` and ``QIDF_URL`` name the
test's engine, ``qidf`` is on PATH; the install block is the one skipped), each exiting 0;
then the page's Python runs, its URL replaced by the test engine's. The outputs the page
describes are checked: one table of q per field, both fields searched, apply naming the
fields it scores, the MCP server's line.

Costs an index of 1,000 functions and about twenty commands: 8.4 minutes measured with
2,000 functions at load 33-42 on the shared 2-core machine, another test run beside it (not
measured on a quiet machine).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import two_fields

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial" / "your-index.md"
INDEX = "code-search"
SKIPPED = ("pip ", "export ")  # the install block: the test's environment is already set


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", PAGE.read_text(), re.M | re.S)


def _commands() -> list[str]:
    found = []
    for block in _blocks("bash"):
        block = re.sub(r"\\\n\s*", " ", block)  # a command continued on the next line
        lines = [line.split("  #")[0].strip() for line in block.splitlines()]
        lines = [line for line in lines if line and not line.startswith("#")]
        if any(line.startswith(SKIPPED) for line in lines):
            continue
        found += lines
    return found


@pytest.fixture(scope="module")
def workdir(cluster, engine_url, tmp_path_factory):
    folder = tmp_path_factory.mktemp("tutorial")
    docs = two_fields.build(cluster, INDEX, size=1000, seed=3)
    two_fields.write_task(docs, folder, queries=60, seed=3)
    config = folder / "config.toml"
    config.write_text(f'[clusters.prod]\nurl = "{engine_url}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIDF_")
           or k in ("QIDF_HOME", "QIDF_JAVA_HOME")}
    env.update(QIDF_URL=engine_url, QIDF_CONFIG=str(config),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    try:
        yield folder, env
    finally:
        subprocess.run(["qidf", "revert", INDEX], env=env, cwd=folder, capture_output=True,
                       timeout=300)
        cluster.request("DELETE", f"/{INDEX}", None, {"ignore_unavailable": "true"})


def test_the_page_is_about_a_two_field_index():
    commands = _commands()
    verbs = {c.split()[1] for c in commands}
    assert {"show", "stats", "predict", "search", "sweep", "eval", "apply", "revert",
            "render", "mcp"} <= verbs, verbs
    assert any("--vs bm25" in c for c in commands)
    assert any("--field-q" in c for c in commands)


def test_every_command_of_the_page_runs_as_written(workdir):
    folder, env = workdir
    outputs: dict[str, str] = {}
    for command in _commands():
        stdin = subprocess.DEVNULL  # `qidf mcp` serves until its client closes stdin
        ran = subprocess.run(["bash", "-c", command], env=env, cwd=folder, stdin=stdin,
                             capture_output=True, text=True, timeout=1200)
        assert ran.returncode == 0, (command, ran.stderr[-2000:])
        outputs[command] = ran.stdout + ran.stderr

    def seen(prefix: str) -> str:
        return " ".join(" ".join(v.split()) for k, v in outputs.items() if k.startswith(prefix))

    predicted = seen(f"qidf predict {INDEX} --queries q.jsonl")
    assert "q for each text field" in predicted and "│ code" in predicted and "│ doc" in predicted
    assert "field code: " in seen(f"qidf search {INDEX} \"func URLQueryEscaper(args ...any) "
                                  "string\" --q auto")
    searched = seen(f"qidf search {INDEX}")
    assert "(best_fields)" in searched and "field doc:" in searched
    assert "left the top" in searched or "at the same rank" in searched
    applied = seen(f"qidf apply {INDEX} --q auto --queries q.jsonl --dry-run")
    assert "scores fields code, doc" in applied.replace("would score", "scores")
    assert "installed q-log BM25 q=0.6" in seen(f"qidf apply {INDEX} --q auto --queries q.jsonl")
    assert "restored" in seen(f"qidf revert {INDEX}")
    assert "recommended:" in seen(f"qidf sweep {INDEX}")
    assert (folder / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert '"similarity": "qidf_doc"' in (folder / "new-index.json").read_text()
    served = seen(f"qidf mcp {INDEX}")
    assert f"{INDEX}: fields code, doc, query-time, code q=0.6, doc q=0.7" in served


def test_the_python_of_the_page_runs(workdir, engine_url):
    folder, env = workdir
    (python,) = _blocks("python")
    script = python.replace("http://127.0.0.1:9200", engine_url)
    ran = subprocess.run([sys.executable, "-c", script], env=env, cwd=folder,
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stderr[-2000:]
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("code 0.6 ") and lines[1].startswith("doc 1.0 ")
    assert any("installed q-log BM25 q=0.6" in line for line in lines)
    assert "restored" in lines[-1]
