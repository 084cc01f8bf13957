"""The cost of ``qidf judgments git`` on a real repository's history, and of the decision
from those judgments on a million-document index, end to end.

The index holds the repository's files at HEAD, one document per file (``path`` a keyword,
``text`` the file under the ``standard`` analyzer), as a code-search index built from a
checkout would. The command runs as the real CLI in a child process (``cli_runs.run_cli``):
once over the newest 10,000 commits (``--since`` the committer date of the 10,000th newest
commit; merges included in the count, as the command reads them) and once over the whole
history. Wall time includes the interpreter's start and imports.

    git clone --bare https://github.com/rust-lang/cargo /tmp/cargo.git   # or `fetch`
    nice -n 10 .venv/bin/python -m qidf_research.bench_judgments git-cost \\
        --repo /tmp/cargo.git --url http://127.0.0.1:9200

writes ``benchmarks/judgments/git-cost.json`` and ``benchmarks/judgments/git-cost.md``;

    nice -n 10 .venv/bin/python -m qidf_research.bench_judgments decision-scale \\
        --repo /tmp/cargo.git --url http://127.0.0.1:9200

builds (once; kept and reused) the million-document index of ``ensure_scale_index`` and
writes ``benchmarks/judgments/decision-1m.json`` and ``decision-1m.md``.
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


# --- a million documents: the repository's files among chunks of other real code ----------

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
                result = run_cli(url, args, command=command)
                out = result["out"]
                decision = out if command == "predict" else out.get("decision") or {}
                runs.append({"command": f"{command} --judgments", "repeat": repeat,
                             "load_before": before, "seconds": round(result["seconds"], 2),
                             "rss_mib": round(result["rss_mib"], 1),
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
        "| command | run | wall s | q | load |",
        "|---|---:|---:|---:|---|",
    ]
    for r in result["runs"]:
        lines.append(f"| {r['command']} | {r.get('repeat', '')} | {r['seconds']:.1f} | "
                     f"{r.get('q', '')} | {r['load_before']} |")
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cost = sub.add_parser("git-cost", help="qidf judgments git on a real history")
    cost.add_argument("--repo", required=True, type=Path)
    cost.add_argument("--url", default="http://127.0.0.1:9200")
    cost.add_argument("--index", default="qidf-judgments-bench")
    cost.add_argument("--out", type=Path, default=OUT)
    build = sub.add_parser("build-scale", help="the million-document index (kept, reused)")
    build.add_argument("--repo", required=True, type=Path)
    build.add_argument("--url", default="http://127.0.0.1:9200")
    build.add_argument("--index", default="qidf-judgments-1m")
    scale = sub.add_parser("decision-scale", help="apply/predict --judgments at 1M documents")
    scale.add_argument("--repo", required=True, type=Path)
    scale.add_argument("--url", default="http://127.0.0.1:9200")
    scale.add_argument("--index", default="qidf-judgments-1m")
    scale.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.command == "decision-scale":
        args.out.mkdir(parents=True, exist_ok=True)
        result = decision_scale(args.repo, args.url, args.index)
        (args.out / "decision-1m.json").write_text(json.dumps(result, indent=2) + "\n")
        (args.out / "decision-1m.md").write_text(decision_markdown(result))
        log(f"wrote {args.out / 'decision-1m.md'}")
        return
    if args.command == "build-scale":
        cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url, timeout=600))
        log(json.dumps(ensure_scale_index(cluster, args.index, args.repo)))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    result = git_cost(args.repo, args.url, args.index)
    (args.out / "git-cost.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "git-cost.md").write_text(git_cost_markdown(result))
    log(f"wrote {args.out / 'git-cost.md'}")


if __name__ == "__main__":
    main()
