"""Judgments from the repository's history through ``qidf judgments git``, run as a user runs
it (a child process, ``--json``), and read back with the product's own reader: queries,
qrels, and the command's time split (older commits choose q, newer ones report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from qidf_ctl.judgments import Judgments, read_folder
from qidf_research.paths import REPO


def command(repo: Path, index: str, path_field: str, out: Path, *,
            max_n: int | None = None) -> list[str]:
    """``qidf judgments git REPO --index INDEX --path-field FIELD --out DIR [--max N]``."""
    args = [sys.executable, "-m", "qidf_ctl", "judgments", "git", str(repo), "--index", index,
            "--path-field", path_field, "--out", str(out)]
    if max_n is not None:
        args += ["--max", str(max_n)]
    return [*args, "--json"]


def write(repo: Path, index: str, path_field: str, out: Path, *, url: str,
          max_n: int | None = None) -> dict[str, Any]:
    """Run the command; its JSON output (the manifest) and its command line."""
    argv = command(repo, index, path_field, out, max_n=max_n)
    env = {**os.environ, "QIDF_URL": url}
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=REPO)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()[-800:]}")
    return {"argv": ["qidf", *argv[3:]], "output": json.loads(proc.stdout)}


def read(folder: Path) -> Judgments:
    """The folder the command wrote, through the product's reader; only judged queries."""
    found = read_folder(folder)
    judged = {q: t for q, t in found.queries.items() if q in found.qrels}
    found.queries = judged
    found.older = [q for q in found.older if q in judged]
    found.newer = [q for q in found.newer if q in judged]
    return found
