#!/usr/bin/env python3
"""
What a similarity change costs a live index, per strategy (``--strategy close`` / ``clone``,
and on Elasticsearch 8.12+ ``reopen``):

1. Swaps under load: an index of real Go docstrings (the corpus shipped with qidf), two
   threads searching it back to back and one thread writing new documents to it (loopback,
   bounded count and time, ``tests/load.py``), while qidf runs N apply/revert swaps on it
   (q = 0.3, then back to the built-in default). Counted: failed searches, rejected writes,
   acknowledged writes missing afterwards (lost), and per swap the window in which the index
   was closed (close) or write-blocked (clone), as qidf measures it and as the writers saw it.
   For the clone strategy the first swap turns the concrete index into an alias of the same
   name (``remove_index``); later swaps only move the alias, so they are reported apart.
2. Conversions: the first clone swap alone, on fresh indices under the same load, to count the
   searches in flight that fail when the concrete index is deleted.
3. Apply time by size: apply and revert on indices of 10K, 100K and 1M documents. The 1M (and
   100K) documents repeat the 13,994 shipped docstrings with distinct ids (``<id>~<k>``).

The node is the benchmark's own (``--port``, started and stopped here; with
``--plugin-zip`` the plugin is installed on it and the similarity goes through it, as
Elasticsearch from Maven Central has no Painless). Run (about 30-40 minutes on 2 shared
cores, mostly indexing the 1M documents):

    .venv/bin/python -m qidf_research.bench_apply --port 9218 \\
        --out benchmarks/apply/results.json --readme benchmarks/apply/README.md
    .venv/bin/python -m qidf_research.bench_apply --port 9219 --engine elasticsearch-8.19.21 \\
        --plugin-zip "$(scripts/build_plugin.sh es-8.19.21 --skip-tests | tail -n 1)" \\
        --sizes 10000,100000 --out benchmarks/apply/results-elasticsearch.json \\
        --readme benchmarks/apply/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.demo import load_task
from qidf_ctl.engine import plugin, process
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import indexing
from qidf_ctl.install.index_ops import resolves_to
from qidf_ctl.similarity import Mode, QlogParams
from qidf_research.bench_apply_report import write_readme
from qidf_research.paths import REPO
from tests.load import Load, rejection_windows

STRATEGIES = ("close", "clone")  # OpenSearch; Elasticsearch 8.12+ adds reopen


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=9218, help="the benchmark's own node")
    p.add_argument("--engine", default=None, help="e.g. opensearch-2.19.6 (the default)")
    p.add_argument("--java-home", default=None)
    p.add_argument("--swaps", type=int, default=12, help="apply/revert swaps per strategy")
    p.add_argument("--conversions", type=int, default=5)
    p.add_argument("--load-docs", type=int, default=10000)
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--plugin-zip", type=Path, default=None,
                   help="install this plugin zip on the node and apply through it")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks/apply/results.json")
    p.add_argument("--readme", type=Path, default=None, help="also write the README here")
    p.add_argument("--readme-only", action="store_true",
                   help="render the README from --out without running anything")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[bench_apply {time.strftime('%H:%M:%S')}] {message}", flush=True)


def documents(n: int) -> dict[str, str]:
    """``n`` real Go docstrings: the shipped corpus, repeated with distinct ids if needed."""
    corpus = sorted(load_task(max_queries=1, seed=0).corpus.items())
    docs: dict[str, str] = {}
    k = 0
    while len(docs) < n:
        for doc_id, text in corpus:
            docs[doc_id if k == 0 else f"{doc_id}~{k}"] = text
            if len(docs) == n:
                break
        k += 1
    return docs


def fresh(cluster: Cluster, name: str, docs: dict[str, str]) -> None:
    for index in resolves_to(cluster, name):
        cluster.request("DELETE", index_path(index))
    indexing.create_index(cluster, name, analyzer="standard", shards=1)
    assert indexing.bulk_index(cluster, name, docs, batch_size=5000) == len(docs)


def words(docs: dict[str, str], n: int = 2000) -> list[str]:
    seen = sorted({w.lower() for t in list(docs.values())[:3000] for w in t.split()
                   if w.isalpha() and len(w) > 3})
    return seen[:n]


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": 0.0, "max": 0.0, "n": 0}
    return {"median": round(statistics.median(values), 3), "max": round(max(values), 3),
            "n": len(values)}


MODE = {"mode": Mode.SCRIPT}  # Mode.PLUGIN when --plugin-zip installed the plugin


def strategies(cluster: Cluster) -> tuple[str, ...]:
    return STRATEGIES + (("reopen",) if cluster.engine.distribution == "elasticsearch" else ())


def swap(cluster: Cluster, name: str, strategy: str, i: int) -> install.ChangeResult:
    if i % 2 == 0:
        return install.apply(cluster, name, QlogParams(0.3), mode=MODE["mode"],
                             strategy=strategy)
    return install.revert(cluster, name, strategy=strategy)


def load_run(cluster: Cluster, url: str, strategy: str, swaps: int,
             docs: dict[str, str]) -> dict[str, Any]:
    """N swaps under a steady search and write load."""
    name = f"bench-load-{strategy}"
    fresh(cluster, name, docs)
    rows: list[dict[str, Any]] = []
    with Load(url, name, words(docs), search_threads=2, write_threads=1,
              max_requests=10**6, max_seconds=1800, field_name=indexing.FIELD,
              seed=7) as load:
        time.sleep(2)  # the load is steady before the first swap
        for i in range(swaps):
            kind = strategy if strategy == "close" else ("convert" if i == 0 else "move")
            started = time.monotonic()
            result = swap(cluster, name, strategy, i)
            ended = time.monotonic()
            rows.append({"swap": i + 1, "kind": kind, "action": result.action,
                         "window_s": round(result.closed_seconds
                                           or result.write_blocked_seconds, 3),
                         "command_s": round(ended - started, 3),
                         "steps_s": result.step_seconds, "started": started, "ended": ended})
            time.sleep(1)
    lost = load.count_lost()
    report = load.report
    for row in rows:  # failures while (or just after) this swap ran
        row["failed_searches"] = sum(row["started"] <= t <= row["ended"] + 1
                                     for t in report.failed_at)
        row["rejected_writes"] = sum(row["started"] <= t <= row["ended"] + 1
                                     for t in report.rejected_at)
    moves = [r for r in rows if r["kind"] != "convert"]
    return {
        "strategy": strategy, "documents": len(docs), "swaps": rows,
        "load": report.as_dict(), "lost_writes": lost,
        "first_failures": report.failures[:5],
        "window_s": _stats([r["window_s"] for r in rows]),
        "window_s_without_conversion": _stats([r["window_s"] for r in moves]),
        "client_rejection_window_s": _stats(rejection_windows(report.rejected_at)),
        "failed_searches_without_conversion": sum(r["failed_searches"] for r in moves),
    }


def conversions(cluster: Cluster, url: str, n: int, docs: dict[str, str]) -> dict[str, Any]:
    """The first clone swap of a concrete index (it becomes an alias), n times, under load."""
    rows = []
    for i in range(n):
        name = "bench-convert"
        fresh(cluster, name, docs)
        with Load(url, name, words(docs), search_threads=2, write_threads=1,
                  max_seconds=600, field_name=indexing.FIELD, seed=100 + i) as load:
            time.sleep(2)
            result = install.apply(cluster, name, QlogParams(0.3), mode=MODE["mode"],
                                   strategy="clone")
            time.sleep(1)
        lost = load.count_lost()
        rows.append({"failed_searches": load.report.failed_searches,
                     "searches": load.report.searches, "lost_writes": lost,
                     "window_s": round(result.write_blocked_seconds, 3),
                     "errors": load.report.as_dict()["errors"]})
    return {"runs": rows, "failed_searches": [r["failed_searches"] for r in rows],
            "lost_writes": sum(r["lost_writes"] for r in rows)}


def size_run(cluster: Cluster, sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        name = "bench-size"
        log(f"indexing {size:,} documents")
        t0 = time.monotonic()
        fresh(cluster, name, documents(size))
        cluster.request("POST", index_path(name, "_forcemerge"), None,
                        {"max_num_segments": "1"})
        store = cluster.request("GET", index_path(name, "_stats", "store"))[
            "_all"]["primaries"]["store"]["size_in_bytes"]
        indexed_s = time.monotonic() - t0
        for strategy in strategies(cluster):
            for action in ("apply", "revert"):
                log(f"{action} --strategy {strategy} on {size:,} documents")
                started = time.monotonic()
                result = swap(cluster, name, strategy, 0 if action == "apply" else 1)
                rows.append({"documents": size, "store_bytes": store, "strategy": strategy,
                             "action": action, "seconds": round(time.monotonic() - started, 3),
                             "window_s": round(result.closed_seconds
                                               or result.write_blocked_seconds, 3),
                             "steps_s": result.step_seconds,
                             "indexing_s": round(indexed_s, 1)})
        for index in resolves_to(cluster, name):
            cluster.request("DELETE", index_path(index))
    return rows


def machine() -> dict[str, Any]:
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=REPO).stdout.strip()
    return {"cpus": os.cpu_count(), "loadavg_start": list(os.getloadavg()), "git": head}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.readme_only:
        write_readme(args.out, args.readme or args.out.parent / "README.md")
        return 0
    cfg = EngineConfig.from_env(args.engine, port=args.port, java_home=args.java_home)
    if args.plugin_zip:
        info = {**plugin.install_local(cfg, args.plugin_zip), "already_running": False}
        MODE["mode"] = Mode.PLUGIN
    else:
        info = process.start(cfg, timeout_s=300)
    results: dict[str, Any] = {"machine": machine(), "engine": cfg.spelling,
                               "command": "python -m qidf_research.bench_apply "
                               f"--swaps {args.swaps} --conversions {args.conversions} "
                               f"--load-docs {args.load_docs} --sizes {args.sizes}"}
    try:
        cluster = Cluster.connect(ConnectionSettings.from_options(url=info["url"]))
        docs = documents(args.load_docs)
        results["load"] = {}
        results["mode"] = MODE["mode"].value
        for strategy in strategies(cluster):
            log(f"{args.swaps} swaps under load, --strategy {strategy}")
            results["load"][strategy] = load_run(cluster, info["url"], strategy, args.swaps,
                                                 docs)
        log(f"{args.conversions} conversions (first clone swap) under load")
        results["conversions"] = conversions(cluster, info["url"], args.conversions, docs)
        results["sizes"] = size_run(cluster, [int(s) for s in args.sizes.split(",")])
        results["machine"]["loadavg_end"] = list(os.getloadavg())
    finally:
        if not info["already_running"]:
            process.stop(cfg)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    if args.readme:
        write_readme(args.out, args.readme)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
