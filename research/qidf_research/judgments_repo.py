"""The repository side of the judgments benchmarks: git, the files at HEAD, an index of them,
the load average (``bench_judgments`` and ``judgments_scale`` share them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
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


