"""The cost of ``qidf judgments git`` on a real repository's history, end to end.

The index holds the repository's files at HEAD, one document per file (``path`` a keyword,
``text`` the file under the ``standard`` analyzer), as a code-search index built from a
checkout would. The command runs as the real CLI in a child process (``cli_runs.run_cli``):
once over the newest 10,000 commits (``--since`` the committer date of the 10,000th newest
commit; merges included in the count, as the command reads them) and once over the whole
history. Wall time includes the interpreter's start and imports.

    git clone --bare https://github.com/rust-lang/cargo /tmp/cargo.git   # or `fetch`
    nice -n 10 .venv/bin/python -m qidf_research.bench_judgments git-cost \\
        --repo /tmp/cargo.git --url http://127.0.0.1:9200

writes ``benchmarks/judgments/git-cost.json`` and ``benchmarks/judgments/git-cost.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.errors import ClusterError
from qidf_research.cli_runs import run_cli
from qidf_research.paths import BENCHMARKS

OUT = BENCHMARKS / "judgments"
MAX_FILE_BYTES = 1 << 20
COMMITS = 10_000
TARGET_S = 60.0


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def head_files(repo: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of every text file at HEAD (NUL-free UTF-8, at most 1 MiB)."""
    listing = git(repo, "ls-tree", "-r", "-z", "--format=%(objectname) %(objectsize) %(path)",
                  "HEAD")
    entries = [e.split(" ", 2) for e in listing.split("\0") if e]
    wanted = [(sha, path) for sha, size, path in entries
              if size != "-" and int(size) <= MAX_FILE_BYTES]
    batch = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"],
                           input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
                           capture_output=True, check=True).stdout
    at = 0
    for _, path in wanted:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        body = batch[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        if b"\0" in body:
            continue
        try:
            yield path, body.decode("utf-8")
        except UnicodeDecodeError:
            continue


def index_files(cluster: Cluster, name: str, files: list[tuple[str, str]]) -> int:
    cluster.request("DELETE", index_path(name), None, {"ignore_unavailable": "true"})
    cluster.request("PUT", index_path(name), {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0,
                               "refresh_interval": "-1"}},
        "mappings": {"properties": {"path": {"type": "keyword"},
                                    "text": {"type": "text", "analyzer": "standard"}}}})
    for start in range(0, len(files), 500):
        lines = []
        for i, (path, text) in enumerate(files[start:start + 500], start):
            lines.append(json.dumps({"index": {"_index": name, "_id": f"f{i}"}}))
            lines.append(json.dumps({"path": path, "text": text}))
        resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
        if resp.get("errors"):
            raise ClusterError(f"bulk into {name} failed")
    cluster.request("PUT", index_path(name, "_settings"), {"index": {"refresh_interval": "1s"}})
    cluster.request("POST", index_path(name, "_refresh"))
    return int(cluster.request("GET", index_path(name, "_count"))["count"])


def nth_newest_date(repo: Path, n: int) -> str:
    """The committer date (ISO, UTC) of the ``n``-th newest commit in ``git log`` order."""
    times = git(repo, "log", "--date-order", "--format=%ct", f"--max-count={n}", "HEAD")
    last = int(times.split()[-1])
    return datetime.fromtimestamp(last, timezone.utc).isoformat()


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def git_cost(repo: Path, url: str, index: str) -> dict[str, Any]:
    cluster = Cluster.connect(ConnectionSettings.from_options(url=url))
    files = list(head_files(repo))
    log(f"indexing {len(files):,} files of {repo} at HEAD into {index}")
    docs = index_files(cluster, index, files)
    total = int(git(repo, "rev-list", "--count", "HEAD").strip())
    since = nth_newest_date(repo, COMMITS)
    runs = []
    for label, extra in ((f"newest {COMMITS:,} commits", ["--since", since]),
                         ("whole history", [])):
        for repeat in (1, 2):
            with tempfile.TemporaryDirectory() as out:
                before = load()
                result = run_cli(url, ["git", str(repo), "--index", index, "--path-field", "path",
                                       "--out", out, *extra], command="judgments")
                manifest = result["out"]
                counts = manifest["counts"]
                runs.append({"history": label, "repeat": repeat, "load_before": before,
                             "seconds": round(result["seconds"], 2),
                             "rss_mib": round(result["rss_mib"], 1),
                             "cpu_s": round(result["cpu_s"], 2),
                             "commits_read": counts["commits_read"],
                             "judged_queries": counts["judged_queries"],
                             "judgments": counts["judgments"],
                             "skipped": counts["skipped"],
                             "answer_files": counts["answer_files"],
                             "split": manifest["split"], "args": extra})
                log(f"{label} run {repeat}: {result['seconds']:.1f}s, "
                    f"{counts['commits_read']:,} commits, {counts['judged_queries']:,} queries"
                    f" (load {before})")
    return {"repository": str(repo), "head": git(repo, "rev-parse", "HEAD").strip(),
            "commits_in_history": total, "index": index, "documents": docs,
            "files_at_head": len(files), "since_for_10k": since, "target_s": TARGET_S,
            "cpus": os.cpu_count(), "git": git(repo, "--version").strip(), "runs": runs,
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def git_cost_markdown(result: dict[str, Any]) -> str:
    lines = [
        "# `qidf judgments git`: cost on a real history",
        "",
        "Generated by `python -m qidf_research.bench_judgments git-cost` (see its docstring "
        "for the command).",
        "",
        f"- Repository: `{Path(result['repository']).name}` at "
        f"`{result['head'][:12]}`, {result['commits_in_history']:,} commits (merges "
        f"included); {result['files_at_head']:,} text files at HEAD indexed as "
        f"{result['documents']:,} documents (`path` keyword, `text` standard analyzer), "
        "one shard, OpenSearch 2.19.6 on the same machine.",
        f"- The real CLI in a child process (interpreter start included), "
        f"{result['cpus']} CPUs shared with other jobs: `load` is the 1/5/15-minute load "
        f"average just before each run. {result['git']}.",
        f"- Target: {COMMITS:,} commits in <= {result['target_s']:.0f} s.",
        "",
        "| history | run | commits read | judged queries | judgments | wall s | CPU s | "
        "peak RSS MiB | load |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["runs"]:
        lines.append(f"| {r['history']} | {r['repeat']} | {r['commits_read']:,} | "
                     f"{r['judged_queries']:,} | {r['judgments']:,} | {r['seconds']:.1f} | "
                     f"{r['cpu_s']:.1f} | {r['rss_mib']:.0f} | {r['load_before']} |")
    first = result["runs"][0]
    lines += ["", f"Skips of the first run ({first['commits_read']:,} commits):", "",
              "| reason | commits |", "|---|---:|"]
    lines += [f"| {k} | {v:,} |" for k, v in first["skipped"].items()]
    lines += ["", "Answer files of the commits that reached matching:", "",
              "| | files |", "|---|---:|"]
    lines += [f"| {k} | {v:,} |" for k, v in first["answer_files"].items()]
    split = first["split"]
    lines += ["", f"Split by {split['by']}: {split['older_queries']:,} older queries choose "
              f"q, {split['newer_queries']:,} newer report (from {split['newer_from']}).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cost = sub.add_parser("git-cost", help="qidf judgments git on a real history")
    cost.add_argument("--repo", required=True, type=Path)
    cost.add_argument("--url", default="http://127.0.0.1:9200")
    cost.add_argument("--index", default="qidf-judgments-bench")
    cost.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    result = git_cost(args.repo, args.url, args.index)
    (args.out / "git-cost.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "git-cost.md").write_text(git_cost_markdown(result))
    log(f"wrote {args.out / 'git-cost.md'}")


if __name__ == "__main__":
    main()
