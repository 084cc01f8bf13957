"""Judgments from the repository's history through ``qidf judgments git`` (the product's
command, run as a user runs it), or through the research stand-in with the same interface
until the command exists. Read back as queries, qrels, and each commit's time (from the
query's metadata when the command writes it, else from git)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.evaluation.files import Qrels, read_qrels, read_queries
from qidf_research.filetasks.gitio import commit_times
from qidf_research.paths import REPO


def product_has_command() -> bool:
    """True when the installed qidf has ``judgments git``."""
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", "judgments", "git", "--help"],
                          capture_output=True, check=False, cwd=REPO)
    return proc.returncode == 0


def command(repo: Path, index: str, path_field: str, out: Path, *, url: str,
            max_n: int | None = None, since: str | None = None,
            until: str | None = None) -> list[str]:
    """The command line that writes the judgments: the product's when it has one."""
    prog = (["-m", "qidf_ctl"] if product_has_command()
            else ["-m", "qidf_research.filetasks.standin_judgments"])
    args = [sys.executable, *prog, "judgments" if prog[1] == "qidf_ctl" else "git"]
    if prog[1] == "qidf_ctl":
        args.append("git")
    args += [str(repo), "--index", index, "--path-field", path_field, "--out", str(out)]
    if max_n is not None:
        args += ["--max", str(max_n)]
    if since:
        args += ["--since", since]
    if until:
        args += ["--until", until]
    if prog[1] != "qidf_ctl":
        args += ["--url", url]
    return args


def write(repo: Path, index: str, path_field: str, out: Path, *, url: str,
          max_n: int | None = None) -> dict[str, object]:
    """Run the command; its printed summary (JSON when it prints JSON) and the argv."""
    argv = command(repo, index, path_field, out, url=url, max_n=max_n)
    env = {**os.environ, "QIDF_URL": url}
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=REPO)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()[-800:]}")
    summary: dict[str, object] = {"argv": [Path(argv[0]).name, *argv[1:]]}
    try:
        summary["output"] = json.loads(proc.stdout)
    except ValueError:
        summary["output"] = proc.stdout.strip()[-4000:]
    return summary


@dataclass
class Judgments:
    queries: dict[str, str]
    qrels: Qrels
    times: dict[str, int]  # query id -> committer time


def read(folder: Path, repo: Path) -> Judgments:
    queries = read_queries(folder / "queries.jsonl")
    qrels = read_qrels(folder / "qrels.tsv")
    times: dict[str, int] = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            meta = row.get("metadata") or {}
            if isinstance(meta, dict) and isinstance(meta.get("time"), int):
                times[str(row["_id"])] = meta["time"]
    missing = [q for q in queries if q not in times]
    if missing:
        times |= commit_times(repo, missing)
    judged = {q: t for q, t in queries.items() if q in qrels}
    return Judgments(judged, {q: qrels[q] for q in judged}, times)
