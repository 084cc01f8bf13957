"""``qidf stats`` and ``qidf apply --q auto`` at a million documents, on one node and on three.

Documents: the code side of every pair in the benchmark's corpus cache (``QIDF_RESEARCH_CACHE``
/corpora: Go at full size, Java, C, Rust, Scala, TypeScript, Ruby, Kotlin, JavaScript, PHP,
Python; exact duplicates dropped: real functions only, no synthetic text), **repeated** to
1,000,000 with distinct ids: every function once (``<id>``), then a seeded half of them again
and again (``copy2:<id>``, ``copy3:<id>``, ...; the last round a seeded sample) until there
are a million. The other half appears once, so its rare terms keep df = 1; repetition lowers
the hapax densities below those of real code of this size (the repeated half holds no df = 1
term at all). The point is time, memory and how far the sampled estimate lands from the
exact value at this size.

Each run is the real CLI in a child process (``bench_stats.run_cli``): ``qidf stats INDEX
--exact``, ``qidf stats INDEX --sample 5000 --seed S`` (S = 1, 2, 3; the default sample the
CLI takes above 100,000 documents), and ``qidf apply INDEX --q auto`` (the default: sampled
statistics, the default predictor, then the close/update/open swap), followed by a revert.

    QIDF_RESEARCH_CACHE=/work/cache/qidf nice -n 10 .venv/bin/python -m \\
        qidf_research.bench_stats --scale --url http://127.0.0.1:9247 \\
        --scale-cluster-url http://127.0.0.1:9244

writes ``benchmarks/stats/scale.json`` and ``benchmarks/stats/scale.md``. Indices
``qidf-stats-1m`` (one node, 1 shard) and ``qidf-stats-1m-6sh`` (three nodes, 6 shards, no
replica: statistics read one copy of each shard either way) are kept for re-runs.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.stats.design import take_all_size
from qidf_ctl.stats.read import longest_docs
from qidf_research.cli_runs import run_cli
from qidf_research.paths import CACHE as RESEARCH_CACHE

DOCUMENTS = 1_000_000
SAMPLE = 5000
SEEDS = (1, 2, 3)
TARGETS = {"sampled_s": 10.0, "exact_s": 180.0}
FINGERPRINT = "scale-v3"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def base_functions() -> list[tuple[str, str]]:
    """(id, code) of every distinct function in the corpus cache, file by file."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for path in sorted(glob.glob(str(RESEARCH_CACHE / "corpora" / "*.jsonl.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                pair = json.loads(line)
                code = pair.get("code")
                if code and code.strip() and code not in seen:
                    seen.add(code)
                    out.append((pair["id"], code))
    return out


def scale_docs(base: list[tuple[str, str]], n: int, seed: int = 0) -> Iterator[tuple[str, str]]:
    """``n`` documents: every base function once, then copies of a seeded half of them only,
    round after round (the last round a seeded sample), each copy with its own id
    (``copyK:`` before the id: ids of real functions hold ``#`` and ``@``, none starts with
    ``copy``). The other half stays unique, so its rare terms keep df = 1."""
    yield from base
    rng = random.Random(seed)
    repeated = sorted(rng.sample(range(len(base)), len(base) // 2))
    k = 2
    left = n - len(base)
    while left > 0:
        take = repeated if left >= len(repeated) else sorted(rng.sample(repeated, left))
        for i in take:
            yield f"copy{k}:{base[i][0]}", base[i][1]
        left -= len(take)
        k += 1


def ensure_index(cluster: Cluster, name: str, base: list[tuple[str, str]], n: int,
                 shards: int) -> float | None:
    """Index ``n`` documents into ``name`` unless it already holds them; seconds taken."""
    try:
        meta = cluster.request("GET", index_path(name, "_mapping"))[name]["mappings"].get(
            "_meta") or {}
        if meta.get("qidf_bench") == f"{FINGERPRINT}-{len(base)}-{n}" and \
                indexing.doc_count(cluster, name) == n:
            return None
    except ClusterError as exc:
        if exc.status != 404:
            raise
    started = time.monotonic()
    indexing.create_index(cluster, name, shards=shards)
    batch: list[str] = []
    done = 0
    for doc_id, code in scale_docs(base, n):
        batch.append(json.dumps({"index": {"_index": name, "_id": doc_id}}))
        batch.append(json.dumps({indexing.FIELD: code}))
        if len(batch) >= 4000:
            _bulk(cluster, name, batch)
            done += len(batch) // 2
            batch = []
            if done % 100_000 == 0:
                log(f"{name}: {done:,} documents ({time.monotonic() - started:.0f}s)")
    if batch:
        _bulk(cluster, name, batch)
    cluster.request("PUT", index_path(name, "_settings"), {"index": {"refresh_interval": "1s"}})
    cluster.request("POST", index_path(name, "_refresh"))
    cluster.request("PUT", index_path(name, "_mapping"),
                    {"_meta": {"qidf_bench": f"{FINGERPRINT}-{len(base)}-{n}"}})
    count = indexing.doc_count(cluster, name)
    if count != n:
        raise RuntimeError(f"{name} holds {count} documents after indexing, expected {n}")
    seconds = time.monotonic() - started
    log(f"indexed {name}: {n:,} documents in {seconds:.0f}s")
    return seconds


def _bulk(cluster: Cluster, name: str, lines: list[str]) -> None:
    resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
    if resp.get("errors"):
        first = next(i for i in resp["items"] if "error" in i["index"])
        raise RuntimeError(f"bulk indexing into {name} failed: {first['index']['error']}")


def engine_memory(cluster: Cluster) -> dict[str, Any]:
    """Per node: heap max, heap used now, and the JVM's peak resident memory since it started
    (``VmHWM``; indexing included) when the process runs on this machine."""
    stats = cluster.request("GET", "/_nodes/stats/jvm")["nodes"]
    pids = {k: v.get("process", {}).get("id")
            for k, v in cluster.request("GET", "/_nodes/process")["nodes"].items()}
    out = {}
    for node_id, node in stats.items():
        mem = node["jvm"]["mem"]
        peak = None
        try:
            for line in Path(f"/proc/{pids.get(node_id)}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
        except (OSError, ValueError):
            pass
        out[node["name"]] = {"heap_max_mib": mem["heap_max_in_bytes"] / 2**20,
                             "heap_used_mib": mem["heap_used_in_bytes"] / 2**20,
                             "peak_rss_mib": peak}
    return out


def _densities(run: dict[str, Any]) -> tuple[dict[str, float], dict[str, list[float]]]:
    f = run["out"]["fields"][0]
    return f["densities"], f.get("intervals") or {}


def measure(cluster: Cluster, url: str, name: str, nodes: int, shards: int
            ) -> list[dict[str, Any]]:
    """Exact once, sampled per seed, the sample's length ranking alone (the one pass over
    every document's ``_source`` that sampled mode makes), apply --q auto then revert; with
    load, wall time and the CLI's own CPU time (the rest of the wall time is the engine)."""
    rows: list[dict[str, Any]] = []

    def row(kind: str, run: dict[str, Any], load: float, **extra: Any) -> dict[str, Any]:
        r = {"index": name, "nodes": nodes, "shards": shards, "run": kind,
             "seconds": round(run["seconds"], 2), "rss_mib": round(run["rss_mib"], 1),
             "cpu_s": round(run["cpu_s"], 1), "load1": round(load, 2), **extra}
        rows.append(r)
        log(f"{name} {kind}: {r['seconds']:.1f}s, {r['rss_mib']:.0f} MiB (load {load:.1f})")
        return r

    load = os.getloadavg()[0]
    exact_run = run_cli(url, [name, "--exact"])
    exact, _ = _densities(exact_run)
    f = exact_run["out"]["fields"][0]
    row("exact", exact_run, load, densities=exact, documents=f["documents"],
        vocabulary=f["vocabulary"], total_tokens=f["total_tokens"])
    for seed in SEEDS:
        load = os.getloadavg()[0]
        run = run_cli(url, [name, "--sample", str(SAMPLE), "--seed", str(seed)])
        dens, intervals = _densities(run)
        row("sampled", run, load, seed=seed, densities=dens, intervals=intervals,
            error={k: dens[k] - exact[k] for k in dens},
            covers={k: lo <= exact[k] <= hi for k, (lo, hi) in intervals.items()},
            half_width={k: (hi - lo) / 2 for k, (lo, hi) in intervals.items()})
    load = os.getloadavg()[0]
    started = time.monotonic()
    ranked = longest_docs(cluster, name, {"exists": {"field": indexing.FIELD}},
                          [indexing.FIELD], take_all_size(SAMPLE))
    rows.append({"index": name, "nodes": nodes, "shards": shards,
                 "run": "length ranking alone", "load1": round(load, 2),
                 "seconds": round(time.monotonic() - started, 2), "documents": len(ranked)})
    log(f"{name} length ranking alone: {rows[-1]['seconds']:.1f}s")
    load = os.getloadavg()[0]
    applied = run_cli(url, [name, "--q", "auto"], command="apply")
    out = applied["out"]
    installed = out.get("after") or out.get("similarity")
    row("apply --q auto", applied, load, installed=installed,
        closed_seconds=out.get("closed_seconds"), message=out.get("message"))
    load = os.getloadavg()[0]
    row("revert", run_cli(url, [name], command="revert"), load)
    return rows


def label(documents: int) -> str:
    """``1m``, ``10m``: the index names' and result files' size tag."""
    return f"{documents // 1_000_000}m" if documents % 1_000_000 == 0 else str(documents)


def run(url: str, cluster_url: str | None, out_dir: Path, documents: int = DOCUMENTS
        ) -> dict[str, Any]:
    """Measure on ``documents`` documents; 1M (the issue's targets) writes scale.json and
    scale.md, another size scale-<size>.json and .md beside them."""
    base = base_functions()
    log(f"{len(base):,} distinct functions in {RESEARCH_CACHE / 'corpora'}")
    tag = label(documents)
    setups = [(url, f"qidf-stats-{tag}", 1)]
    if cluster_url:
        setups.append((cluster_url, f"qidf-stats-{tag}-6sh", 6))
    result: dict[str, Any] = {
        "documents": documents, "distinct_functions": len(base), "sample": SAMPLE,
        "seeds": list(SEEDS), "targets": TARGETS, "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(), "setups": []}
    for where, name, shards in setups:
        cluster = Cluster.connect(ConnectionSettings.from_options(url=where))
        nodes = int(cluster.request("GET", "/_cluster/health")["number_of_nodes"])
        indexed = ensure_index(cluster, name, base, documents, shards)
        rows = measure(cluster, where, name, nodes, shards)
        result["setups"].append({
            "url": where, "index": name, "nodes": nodes, "shards": shards,
            "engine": str(cluster.engine), "indexing_seconds": indexed, "rows": rows,
            "engine_memory": engine_memory(cluster)})
    result["checks"] = checks(result)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "scale" if documents == DOCUMENTS else f"scale-{tag}"
    (out_dir / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    write_markdown(out_dir / f"{stem}.md", result)
    return result


def checks(result: dict[str, Any]) -> list[str]:
    t = result["targets"]
    lines = []
    for s in result["setups"]:
        where = f"{s['nodes']} node(s), {s['shards']} shard(s)"
        exact = [r for r in s["rows"] if r["run"] == "exact"]
        sampled = [r for r in s["rows"] if r["run"] == "sampled"]
        for r in exact:
            verdict = "met" if r["seconds"] <= t["exact_s"] else "NOT met"
            lines.append(f"{verdict}: exact on {where}: {r['seconds']:.1f} s (target "
                         f"{t['exact_s']:.0f} s), peak RSS {r['rss_mib']:.0f} MiB")
        fast = sum(r["seconds"] <= t["sampled_s"] for r in sampled)
        held = sum(all(r["covers"].values()) for r in sampled)
        secs = [r["seconds"] for r in sampled]
        lines.append(
            f"{'met' if fast == len(sampled) else f'met in {fast} of {len(sampled)}'}: "
            f"sampled on {where}: {min(secs):.1f}-{max(secs):.1f} s (target "
            f"{t['sampled_s']:.0f} s); the exact value inside the reported 95% interval for "
            f"every density in {held} of {len(sampled)} runs; largest |error| on h_tok "
            f"{max(abs(r['error']['tokens']) for r in sampled):.4f}")
    return lines


def write_markdown(path: Path, result: dict[str, Any]) -> None:
    at_target_size = result["documents"] == DOCUMENTS  # the size issue 15's targets name
    lines = [
        f"# `qidf stats` and `apply --q auto` at {result['documents']:,} documents",
        "",
        "Generated by `python -m qidf_research.bench_stats --scale` (module "
        "`qidf_research.stats_scale`; its docstring has the full method). Regenerate with:",
        "",
        "```",
        "QIDF_RESEARCH_CACHE=/work/cache/qidf nice -n 10 .venv/bin/python -m "
        "qidf_research.bench_stats --scale --url http://127.0.0.1:9247 " + (
            "--scale-cluster-url http://127.0.0.1:9244" if at_target_size
            else f"--scale-documents {result['documents']}"),
        "```",
        "",
        f"**Documents are repeated.** {result['distinct_functions']:,} distinct real functions "
        "(the code side of every corpus in the benchmark's cache, 11 languages), each once, "
        f"then a seeded half of them repeated until there are {result['documents']:,}, every "
        "copy with its own id. The other half stays unique and keeps its df = 1 terms; the "
        "repeated half has none, so the densities below are lower than real code of this "
        "size would give. Time, memory and the sampled estimate's error are what is measured.",
        "",
        f"Machine: {result['cpus']} CPUs shared with other engineers' jobs (the `load` "
        f"column: 1-minute load average before each run), {result['date']}. Each run is the "
        "real CLI in a child process: wall time from start to exit, peak RSS of that process.",
        "",
    ]
    for s in result["setups"]:
        idx = (f"{s['indexing_seconds']:.0f} s to index" if s["indexing_seconds"]
               else "index reused")
        lines += [f"## {s['engine']}, {s['nodes']} node(s), {s['shards']} shard(s) "
                  f"(`{s['index']}`, {idx})", "",
                  "| run | wall s | CLI CPU s | peak RSS MiB | load | h_tok | 95% interval | "
                  "error vs exact | all 4 intervals hold exact |",
                  "|---|---:|---:|---:|---:|---:|---|---:|---|"]
        for r in s["rows"]:
            dens = r.get("densities", {})
            h = f"{dens['tokens']:.5f}" if dens else ""
            iv = r.get("intervals", {}).get("tokens")
            ivs = f"{iv[0]:.5f}-{iv[1]:.5f}" if iv else ""
            err = f"{r['error']['tokens']:+.5f}" if "error" in r else ""
            cov = ("yes" if all(r["covers"].values()) else
                   f"no ({', '.join(k for k, v in r['covers'].items() if not v)})"
                   ) if "covers" in r else ""
            label = r["run"] + (f" (seed {r['seed']})" if "seed" in r else "")
            if r["run"] == "apply --q auto":
                label += f": {r.get('installed')}"
            cpu = f"{r['cpu_s']:.1f}" if "cpu_s" in r else ""
            rss = f"{r['rss_mib']:.0f}" if "rss_mib" in r else ""
            lines.append(f"| {label} | {r['seconds']:.1f} | {cpu} | {rss} | "
                         f"{r['load1']:.1f} | {h} | {ivs} | {err} | {cov} |")
        mem = "; ".join(f"{n}: heap {m['heap_max_mib']:.0f} MiB (used {m['heap_used_mib']:.0f}), "
                        f"peak RSS {m['peak_rss_mib']:.0f} MiB" if m["peak_rss_mib"] else
                        f"{n}: heap {m['heap_max_mib']:.0f} MiB" for n, m in
                        sorted(s["engine_memory"].items()))
        lines += ["", f"Engine memory after the runs (peak RSS: since the JVM started, "
                  f"indexing included): {mem}.", ""]
    targets = "## Targets (issue 15)" if at_target_size else (
        "## Issue 15's targets (set for 1,000,000 documents; here for reference)")
    lines += [targets, "", *[f"- {c}" for c in result["checks"]], "",
              "## Where the time goes", "",
              "- Exact mode reads every document's term vectors. The engine rebuilds them from "
              "`_source` (re-analysing each document) because code indices do not store term "
              "vectors: that is the wall time; the CLI's own CPU time (column `CLI CPU s`) is "
              "the JSON decoding and counting. Four requests are kept in flight.",
              "- Sampled mode reads 5,000 documents, but first ranks every document by length "
              "(the take-all stratum, see `qidf_ctl/stats/design.py`) in one `script_score` "
              "pass that has to load each document's `_source`; the row `length ranking "
              "alone` times that pass by itself. The uniform part of the sample is read while "
              "it runs.",
              "- Load matters more than anything qidf does. " + (
                  "The same runs on the same documents, taken earlier while other "
                  "engineers' test suites shared the 2 CPUs (load 11-18), took 333-340 s "
                  "exact and 14-18 s sampled (commit 8aff0bc's scale.md). "
                  if at_target_size else "") +
              "The `load` column says what each run here shared the machine with.", ""]
    path.write_text("\n".join(lines))
