"""The decision from judgments on a million documents: rust-lang/cargo's files at HEAD among
real code chunks (``ensure_scale_index``), and ``qidf predict``/``qidf apply --q auto
--judgments`` timed as the real CLI (``decision_scale``); ``bench_judgments decision-scale``
runs it."""

from __future__ import annotations

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
from qidf_research.judgments_repo import (
    COMMITS,
    TARGET_S,
    git,
    head_files,
    load,
    log,
    nth_newest_date,
)

SCALE_DOCUMENTS = 1_000_000
CHUNK_LINES = 6
GO_ROOT = Path("/usr/local/go/src")
JDK_SRC = Path("/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip")
PY_LIB = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"


def _source_files() -> Iterator[tuple[str, str]]:
    """(name, text) of real source files on this machine, in a fixed order: the Go
    distribution's src/, the JDK's src.zip, CPython's standard library (tests and
    site-packages left out)."""
    import zipfile

    for path in sorted(GO_ROOT.rglob("*.go")):
        if path.is_file():
            yield f"go:{path.relative_to(GO_ROOT)}", path.read_text(errors="replace")
    with zipfile.ZipFile(JDK_SRC) as jdk:
        for name in sorted(n for n in jdk.namelist() if n.endswith(".java")):
            yield f"java:{name}", jdk.read(name).decode("utf-8", errors="replace")
    for path in sorted(PY_LIB.rglob("*.py")):
        parts = set(path.relative_to(PY_LIB).parts)
        if path.is_file() and not parts & {"site-packages", "test", "tests"}:
            yield f"python:{path.relative_to(PY_LIB)}", path.read_text(errors="replace")


def filler_chunks(n: int) -> Iterator[tuple[str, str]]:
    """``n`` distinct chunks of ``CHUNK_LINES`` non-blank lines of real code (exact duplicates
    such as license headers dropped), ids ``chunk:<file>#<k>``."""
    seen: set[int] = set()
    made = 0
    for name, text in _source_files():
        lines = [line for line in text.splitlines() if line.strip()]
        for k in range(0, len(lines), CHUNK_LINES):
            chunk = "\n".join(lines[k:k + CHUNK_LINES])
            key = hash(chunk)
            if key in seen:
                continue
            seen.add(key)
            yield f"chunk:{name}#{k // CHUNK_LINES}", chunk
            made += 1
            if made >= n:
                return
    raise RuntimeError(f"only {made:,} distinct chunks on this machine, {n:,} asked for")


def ensure_scale_index(cluster: Cluster, name: str, repo: Path) -> dict[str, Any]:
    """The repository's files (``path`` set) and real code chunks (no ``path``) up to a
    million documents; reused when its ``_meta`` says it holds exactly this."""
    files = list(head_files(repo))
    head = git(repo, "rev-parse", "HEAD").strip()
    fingerprint = f"scale-v1:{head}:{len(files)}:{SCALE_DOCUMENTS}:{CHUNK_LINES}"
    try:
        meta = cluster.request("GET", index_path(name, "_mapping"))[name]["mappings"].get(
            "_meta") or {}
        count = int(cluster.request("GET", index_path(name, "_count"))["count"])
        if meta.get("qidf_bench") == fingerprint and count == SCALE_DOCUMENTS:
            return {"index": name, "documents": count, "reused": True,
                    "repository_files": len(files)}
    except ClusterError as exc:
        if exc.status != 404:
            raise
    log(f"building {name}: {len(files):,} files of {repo.name} and real code chunks up to "
        f"{SCALE_DOCUMENTS:,} documents")
    cluster.request("DELETE", index_path(name), None, {"ignore_unavailable": "true"})
    cluster.request("PUT", index_path(name), {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0,
                               "refresh_interval": "-1"}},
        "mappings": {"properties": {"path": {"type": "keyword"},
                                    "text": {"type": "text", "analyzer": "standard"}}}})
    docs: Iterator[tuple[str, dict[str, str]]] = (
        (f"f{i}", {"path": p, "text": t}) for i, (p, t) in enumerate(files))
    chunks = ((i, {"text": t}) for i, t in filler_chunks(SCALE_DOCUMENTS - len(files)))
    started = time.monotonic()
    batch: list[str] = []
    sent = 0
    for doc_id, source in (*docs, *chunks):
        batch += [json.dumps({"index": {"_index": name, "_id": doc_id}}), json.dumps(source)]
        if len(batch) >= 4000:
            _bulk(cluster, name, batch)
            sent += len(batch) // 2
            batch = []
            if sent % 100_000 < 2000:
                log(f"  {sent:,} documents ({time.monotonic() - started:.0f}s)")
    if batch:
        _bulk(cluster, name, batch)
    cluster.request("PUT", index_path(name, "_settings"), {"index": {"refresh_interval": "1s"}})
    cluster.request("POST", index_path(name, "_refresh"))
    cluster.request("POST", index_path(name, "_forcemerge"), None, {"max_num_segments": "1"})
    cluster.request("PUT", index_path(name, "_mapping"), {"_meta": {"qidf_bench": fingerprint}})
    count = int(cluster.request("GET", index_path(name, "_count"))["count"])
    return {"index": name, "documents": count, "reused": False, "repository_files": len(files),
            "indexing_s": round(time.monotonic() - started, 1)}


def _bulk(cluster: Cluster, name: str, lines: list[str]) -> None:
    resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
    if resp.get("errors"):
        raise ClusterError(f"bulk into {name} failed")


def engine_cpu(url: str) -> float | None:
    """CPU seconds the engine's process has used (user + system), from /proc: the work a
    run made the engine do, whatever the machine's load (None when it cannot be read)."""
    try:
        status = subprocess.run([sys.executable, "-m", "qidf_ctl", "engine", "status",
                                 "--port", url.rsplit(":", 1)[1].strip("/"), "--json"],
                                capture_output=True, text=True, check=False)
        pid = json.loads(status.stdout)["pid"]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def decision_scale(repo: Path, url: str, index: str, repeats: int = 2) -> dict[str, Any]:
    """``qidf predict --judgments`` and ``qidf apply --q auto --judgments --dry-run`` on the
    million-document index, from the judgments of the newest 10,000 commits."""
    cluster = Cluster.connect(ConnectionSettings.from_options(url=url, timeout=600))
    built = ensure_scale_index(cluster, index, repo)
    since = nth_newest_date(repo, COMMITS)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        before = load()
        made = run_cli(url, ["git", str(repo), "--index", index, "--path-field", "path",
                             "--field", "text", "--out", folder, "--since", since],
                       command="judgments")
        runs.append({"command": "judgments git (newest 10,000 commits)", "load_before": before,
                     "seconds": round(made["seconds"], 2),
                     "judged_queries": made["out"]["counts"]["judged_queries"]})
        log(f"judgments: {made['seconds']:.1f}s (load {before})")
        for repeat in range(1, repeats + 1):
            for command, args in (("predict", [index, "--judgments", folder]),
                                  ("apply", [index, "--q", "auto", "--judgments", folder,
                                             "--dry-run"])):
                before = load()
                cpu_before = engine_cpu(url)
                result = run_cli(url, args, command=command)
                cpu_after = engine_cpu(url)
                out = result["out"]
                decision = out if command == "predict" else out.get("decision") or {}
                runs.append({"command": f"{command} --judgments", "repeat": repeat,
                             "load_before": before, "seconds": round(result["seconds"], 2),
                             "rss_mib": round(result["rss_mib"], 1),
                             "cli_cpu_s": round(result["cpu_s"], 1),
                             "engine_cpu_s": (round(cpu_after - cpu_before, 1)
                                              if cpu_before is not None
                                              and cpu_after is not None else None),
                             "q": decision.get("q"), "decision": decision})
                log(f"{command} run {repeat}: {result['seconds']:.1f}s, q "
                    f"{decision.get('q')} (load {before})")
    return {"index": built, "since_for_10k": since, "target_s": TARGET_S,
            "cpus": os.cpu_count(), "runs": runs,
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def decision_markdown(result: dict[str, Any]) -> str:
    index = result["index"]
    predict = next(r for r in result["runs"] if r["command"] == "predict --judgments")
    d = predict["decision"]
    report = d.get("report") or {}
    lines = [
        "# The decision from judgments on a million documents",
        "",
        "Generated by `python -m qidf_research.bench_judgments decision-scale` (its docstring "
        "and `ensure_scale_index` say how the index is built).",
        "",
        f"- Index `{index['index']}`: {index['documents']:,} documents, one shard, "
        "OpenSearch 2.19.6 on the same machine, `standard` analyzer: rust-lang/cargo's "
        f"{index['repository_files']:,} files at HEAD (`path` keyword) and real code in "
        f"chunks of {CHUNK_LINES} non-blank lines (Go's src/, the JDK's src.zip, CPython's "
        "standard library; exact duplicates dropped).",
        "- Judgments: `qidf judgments git` on cargo's newest 10,000 commits (the older half "
        "chooses q, the newer half reports).",
        "- Each command is the real CLI in a child process (interpreter start included), on "
        f"{result['cpus']} CPUs shared with other jobs; `load` is the 1/5/15-minute load "
        "average just before the run.",
        f"- Target: the decision within {result['target_s']:.0f} s.",
        "",
        "| command | run | wall s | CLI CPU s | engine CPU s | q | load |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["runs"]:
        lines.append(f"| {r['command']} | {r.get('repeat', '')} | {r['seconds']:.1f} | "
                     f"{r.get('cli_cpu_s', '')} | {r.get('engine_cpu_s', '')} | "
                     f"{r.get('q', '')} | {r['load_before']} |")
    phases = d.get("phases") or {}
    lines += ["", "Wall seconds by step (first predict run): " + ", ".join(
        f"{k} {v:.1f}" for k, v in phases.items()), ""]
    lines += ["", f"The decision: {d.get('reason')}", "",
              f"Older queries measured: {d.get('older_queries')} of "
              f"{d.get('older_available')}; q measured: "
              + ", ".join(f"{q} ({v:.4f})" for q, v in (d.get("mean_ndcg10") or {}).items()),
              "",
              f"Newer split ({report.get('queries')} queries): NDCG@10 "
              f"{report.get('chosen_ndcg10', 0):.4f} at q {d.get('q')} against "
              f"{report.get('bm25_ndcg10', 0):.4f} with BM25 (delta "
              f"{report.get('delta', 0):+.4f}, paired bootstrap p = "
              f"{report.get('p_value', 1):.3g}).", ""]
    return "\n".join(lines)


