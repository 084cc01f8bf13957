#!/usr/bin/env python3
"""
Query speed of built-in BM25, the qidf plugin and the Painless similarity on one index.

The plugin subclasses Lucene's BM25 and changes only ``idf()``, so its query speed should be
BM25's; the Painless scripted similarity runs a script for every score it computes. This
script measures both on one segment, so that the similarity is the only thing that differs:

1. A private OpenSearch node (its own QIDF home and port: installing the plugin restarts the
   node, which must never be someone's everyday node) gets the plugin zip built from this tree.
2. One index of real code documents (the code and the doc comment of every Go, Java and
   Python pair, minus the held-out query pairs), standard analyzer, one shard, force-merged
   to one segment. Three ``_clone``s hard-link the same segment files (checked by inode);
   ``qidf_ctl.install.apply`` gives them the plugin at the predicted q, the Painless
   similarity at the same q, and the plugin at q = 1 (the control: it scores bit for bit like
   BM25, so it isolates the plugin's code path from the effect of q on the scores).
3. Held-out pairs give the queries: their doc comments (natural language, as a coding agent
   types them: a ``match`` query), their code (long queries: ``_analyze`` + merged ``term``
   clauses, as qidf's benchmarks send them), and the doc comments again with
   ``track_total_hits: true`` (every match scored: no dynamic pruning).
4. One client thread, one persistent HTTP connection, one search at a time. The node is
   launched three times (the JIT compiles differently per JVM launch); after each launch a
   warm-up, then three rounds. A round runs every query once on every index; the indices take
   turns every 20 queries in a rotating order, so that bursts of load from other processes
   fall on all of them alike. Reported: the median over rounds of each round's p50, p99 and
   throughput, and per-round ratios against BM25 (with each launch's median beside them).
5. A profiled pass counts the term-document scores a query computes, which turns the
   Painless-minus-plugin time with pruning off into a cost per score.

Run (about 12 minutes on 2 cores; the first run adds a minute to parse the JDK's sources):

    .venv/bin/python -m qidf_research.bench_speed --out benchmarks/speed/results.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import sysconfig
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import config as local_engine
from qidf_ctl.engine import plugin, process
from qidf_ctl.similarity import Mode, QlogParams
from qidf_research.build_corpus import default_src_zip
from qidf_research.paths import REPO
from qidf_research.speed.checks import check_query_time, check_scores
from qidf_research.speed.client import Block, Client, profile, run_block, timed_round
from qidf_research.speed.corpus import Split, documents, load_all_pairs, split_pairs
from qidf_research.speed.indices import build_base_index, clone, index_facts, predicted_q
from qidf_research.speed.queries import code_queries, nl_queries
from qidf_research.speed.querytime import QueryTimeSystems
from qidf_research.speed.report import (
    by_clauses,
    explain,
    git_head,
    machine,
    markdown_table,
    sha256,
    summarise,
)
from qidf_research.speed.settings import (
    BM25,
    DEFAULT_ZIP,
    INSTALLED,
    PAINLESS,
    PLUGIN,
    PLUGIN_Q1,
    QUERY_TIME,
    SYSTEMS,
    log,
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=9240)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--home", type=Path,
                    default=local_engine.home_dir().with_name("qidf-bench-speed"),
                    help="QIDF home of the private node (distribution, data)")
    ap.add_argument("--zip", type=Path, default=DEFAULT_ZIP, help="plugin zip to install")
    ap.add_argument("--jdk-src", type=Path, default=default_src_zip(),
                    help="JDK lib/src.zip (default: the first JDK that has one)")
    ap.add_argument("--python-lib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                    help="CPython standard library (default: this interpreter's)")
    ap.add_argument("--queries", type=int, default=1000, help="queries per query set")
    ap.add_argument("--code-queries", type=int, default=1000,
                    help="code queries (0: natural-language set only)")
    ap.add_argument("--exhaustive-queries", type=int, default=500,
                    help="doc-comment queries also run with track_total_hits=true (0: skip)")
    ap.add_argument("--warmup", type=int, default=200,
                    help="warm-up queries per index and set, after each JVM launch")
    ap.add_argument("--forks", type=int, default=3,
                    help="JVM launches of the node (restart, warm-up, then --rounds rounds)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per JVM launch")
    ap.add_argument("--chunk", type=int, default=20,
                    help="queries per turn before the next index runs them")
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--profile-queries", type=int, default=200)
    ap.add_argument("--predict-sample", type=int, default=5000)
    ap.add_argument("--q", type=float, default=None, help="fixed q instead of the prediction")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--reuse-index", action="store_true",
                    help="keep an identical index from an earlier run (development only)")
    ap.add_argument("--keep-node", action="store_true", help="leave the node running")
    ap.add_argument("--index", default="bench-speed")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "speed" / "results.json")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    load_before = os.getloadavg()
    cfg = local_engine.EngineConfig(port=args.port, heap=args.heap, home=args.home)
    if args.port == local_engine.DEFAULT_PORT:
        raise SystemExit(f"port {args.port} is the everyday local node's, and installing the "
                         "plugin restarts the node: pick another --port")

    log("loading pairs")
    split = split_pairs(load_all_pairs(args.jdk_src, args.python_lib), args.queries,
                        args.warmup, args.seed)
    docs = documents(split.indexed)
    langs = {lang: sum(1 for p in split.indexed if p.language == lang)
             for lang in sorted({p.language for p in split.indexed})}
    log(f"{len(docs)} documents from {len(split.indexed)} pairs {langs}; "
        f"{len(split.queries)} query pairs, {len(split.warmup)} warm-up pairs")

    log(f"installing {args.zip.name} into the private node at {cfg.root} and starting it")
    plugin.install_local(cfg, args.zip, progress=log)
    try:
        result = run(args, cfg, split, docs, langs, load_before, started)
    finally:
        if not args.keep_node:
            log("stopping the private node")
            process.stop(cfg)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {args.out}")
    print(markdown_table(result["summary"]))
    return 0


def run(args: argparse.Namespace, cfg: local_engine.EngineConfig, split: Split,
        docs: dict[str, str], langs: dict[str, int], load_before: tuple[float, ...],
        started: float) -> dict[str, Any]:
    """Everything that needs the node; the caller stops the node whatever happens here."""
    cluster = Cluster.connect(ConnectionSettings(url=cfg.url, timeout=600))
    plugins = sorted(p["name"] for n in cluster.request("GET", "/_nodes/plugins")["nodes"]
                     .values() for p in n.get("plugins", []))
    base = args.index
    # Query time searches the BM25 index itself: that is the point of it.
    names = {s: base if s in (BM25, *QUERY_TIME) else f"{base}-{s}" for s in SYSTEMS}

    t0 = time.monotonic()
    built = build_base_index(cluster, base, docs, args.reuse_index)
    index_seconds = time.monotonic() - t0
    log(("indexed" if built else "reused") + f" {base} in {index_seconds:.0f}s")

    if args.q is not None:
        q, q_info = args.q, {"source": "--q on the command line"}
    else:
        log("predicting q with qidf's predictor")
        q, q_info = predicted_q(cluster, base, args.predict_sample, args.seed)
    params = QlogParams(q=q)
    log(f"q = {q} ({q_info.get('source')})")

    setups = ((PLUGIN, Mode.PLUGIN, params), (PAINLESS, Mode.SCRIPT, params),
              (PLUGIN_Q1, Mode.PLUGIN, QlogParams(q=1.0)))
    for system, mode, system_params in setups:
        clone(cluster, base, names[system])
        res = install.apply(cluster, names[system], system_params, mode=mode)
        log(f"  {res.message}")
    facts = {s: index_facts(cluster, cfg, names[s]) for s in INSTALLED}
    inodes = {tuple(f["segment_file_inodes"]) for f in facts.values()}
    if any(f["segments"] != 1 for f in facts.values()) or len(inodes) != 1 or not next(
            iter(inodes)):
        raise RuntimeError(f"indices do not share one identical segment: {facts}")

    log("building query sets")
    # A few JDK methods run past _analyze's default limit of 10,000 tokens.
    cluster.request("PUT", f"/{base}/_settings", {"index.analyze.max_token_count": 1_000_000})
    sets = [nl_queries(cluster, base, split.queries, args.size)]
    warm = {"doc_comment": nl_queries(cluster, base, split.warmup, args.size)}
    if args.code_queries:
        sets.append(code_queries(cluster, base, split.queries[:args.code_queries], args.size))
        warm["code"] = code_queries(cluster, base, split.warmup, args.size)
    if args.exhaustive_queries:
        sets.append(nl_queries(cluster, base, split.queries[:args.exhaustive_queries],
                               args.size, exhaustive=True))
        warm[sets[-1].name] = nl_queries(cluster, base, split.warmup, args.size, True)

    client = Client(args.port)
    log("query time: building every query once (this fills the warm df cache)")
    qts = QueryTimeSystems(client, base, cluster.engine.version, q, args.size)
    qts.attach([*sets, *warm.values()])
    blocks: list[Block] = []
    timed_seconds = 0.0
    total_rounds = args.forks * args.rounds
    try:
        checks = check_scores(client, {s: names[s] for s in INSTALLED}, sets, q)
        log(f"score check: {checks}")
        checks["query_time"] = check_query_time(client, names, sets)
        log(f"query-time check: {checks['query_time']}")
        for fork in range(args.forks):
            if fork:
                # A fresh JVM: the JIT compiles (and inlines) differently per launch, a
                # variation that rounds within one JVM never see.
                client.close()
                log(f"restarting the node (JVM launch {fork + 1}/{args.forks})")
                process.stop(cfg)
                process.start(cfg)
                cluster.request("GET", "/_cluster/health?wait_for_status=green&timeout=120s")
                client = Client(args.port)
                qts.use(client)
            log(f"warm-up: {args.warmup} + 100 queries per index and set")
            for qs in sets:
                for system in SYSTEMS:
                    run_block(client, names[system], *warm[qs.name].for_system(system))
                    bodies, build = qs.for_system(system)
                    run_block(client, names[system], bodies[: min(100, len(bodies))], build)
            t_timed = time.monotonic()
            for i in range(args.rounds):
                r = fork * args.rounds + i
                for qs in sets:
                    blocks += timed_round(client, names, qs, r, fork, args.chunk)
                    for b in blocks[-len(SYSTEMS):]:
                        s = b.summary()
                        log(f"round {r + 1}/{total_rounds} {qs.name:<11} {b.system:<9} "
                            f"p50 {s['p50_ms']:7.2f} ms  p99 {s['p99_ms']:7.2f} ms  "
                            f"{s['qps']:7.1f} q/s")
            timed_seconds += time.monotonic() - t_timed

        log("profiling a sample")
        profiles = {qs.name: {s: profile(client, names[s], qs.bodies[:args.profile_queries])
                              for s in INSTALLED} for qs in sets}
    finally:
        client.close()

    summary = summarise(blocks, sets)
    by_len = {qs.name: by_clauses(blocks, qs, [1, 6, 11, 21, 51, 101, 201, 2000])
              for qs in sets}
    node_jvm = cluster.request("GET", "/_nodes/jvm")["nodes"]
    jvm = next(iter(node_jvm.values()))["jvm"]
    return {
        "command": "python " + " ".join([sys.argv[0], *sys.argv[1:]]),
        "git_head": git_head(),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds_total": time.monotonic() - started,
        "seconds_indexing": index_seconds,
        "seconds_timed": timed_seconds,
        "machine": {**machine(), "load_avg_before": list(load_before),
                    "load_avg_after": list(os.getloadavg())},
        "engine": {"version": cluster.engine.version, "plugins": plugins,
                   "jvm": f"{jvm.get('vm_name')} {jvm.get('version')}",
                   "heap": args.heap, "plugin_zip": args.zip.name,
                   "plugin_zip_sha256": sha256(args.zip)},
        "corpus": {"documents": len(docs), "pairs_indexed": len(split.indexed),
                   "pairs_by_language": langs, "analyzer": "standard", "shards": 1,
                   "segments": 1, "index_built_this_run": built},
        "indices": facts,
        "q": q, "q_info": q_info, "params": params.as_dict(),
        "query_time": {"q": q, "warm_cache_terms": len(qts.warm.cache),
                       "warm_cache_counts": vars(qts.warm.cache.counts),
                       "systems": {s: names[s] for s in QUERY_TIME}},
        "method": {"forks": args.forks, "rounds_per_fork": args.rounds,
                   "warmup_queries": args.warmup, "size": args.size,
                   "seed": args.seed, "client": "one thread, http.client keep-alive, "
                   "_source false, request_cache=false, default track_total_hits",
                   "chunk": args.chunk,
                   "order": f"indices take turns every {args.chunk} queries, turn order "
                            "rotating; a round runs every query once on every index"},
        "query_sets": {qs.name: {"description": qs.description, "queries": len(qs.bodies),
                                 "clauses_median": statistics.median(qs.clauses),
                                 "clauses_max": max(qs.clauses)} for qs in sets},
        "score_check": checks,
        "summary": summary,
        "by_query_length": by_len,
        "profile": profiles,
        "explain": explain(blocks, profiles, args.profile_queries),
        "blocks": [{"system": b.system, "query_set": b.query_set, "round": b.round,
                    "fork": b.fork,
                    **b.summary()} for b in blocks],
    }


if __name__ == "__main__":
    raise SystemExit(main())
