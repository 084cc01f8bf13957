#!/usr/bin/env python3
"""
Query-time q-log against the installed similarity, measured on real code.

For each corpus (code -> doc: a function's code is the query, its docstring the one relevant
document among all docstrings):

1. One shard: the boosted query (``qidf_ctl.querytime``, statistics of the shard) at every q
   against Painless and the plugin installed on the very same index (same segments), top 10
   compared document by document; at q = 1 also against plain BM25, ids and scores.
2. Several shards (3): the installed plugin under default search (query_then_fetch, each
   shard scores with its own df) and under dfs_query_then_fetch, against query time with
   index-wide statistics under dfs, and under default search with shard 0's or index-wide
   statistics: identical top 10, NDCG@10 and how many queries it moved.
3. ``qidf sweep`` on the first corpus's one-shard index, settings mode against query-time
   mode (8 q x 2,000 queries by default): wall time of each, and the two curves.

The node must have the qidf plugin (``qidf plugin install --port P``) and Painless (the
local OpenSearch does). Indices are named ``qidf-qt-bench-*`` and deleted at the end.

    .venv/bin/python -m qidf_research.bench_querytime --url http://127.0.0.1:9221

Writes ``benchmarks/querytime/results.json`` and ``results.md``. On a node without the
plugin (OpenSearch 3.x here): ``--modes script --sweep-queries 0 --out ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qidf_ctl import demo, install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.evaluation import code_to_doc, load_pairs
from qidf_ctl.similarity import Mode
from qidf_research.paths import BENCHMARKS
from qidf_research.querytime.experiment import (
    Corpus,
    analyse,
    build_index,
    one_shard,
    several_shards,
)
from qidf_research.querytime.report import markdown
from qidf_research.querytime.sweeps import time_sweeps

CORPUS_DIR = Path(os.environ.get("QIDF_CORPUS_DIR", "/work/cache/qidf/corpora"))
SWEEP_GRID = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)
PREFIX = "qidf-qt-bench-"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="a node with Painless and the qidf plugin")
    ap.add_argument("--corpora", default="go,ruby",
                    help="go (shipped) and/or languages in --corpus-dir (LANG.jsonl.gz)")
    ap.add_argument("--corpus-dir", type=Path, default=CORPUS_DIR)
    ap.add_argument("--queries", type=int, default=1000, help="code queries per corpus")
    ap.add_argument("--qs", default="0.05,0.3,0.6,1")
    ap.add_argument("--shards", type=int, default=3)
    ap.add_argument("--modes", default="script,plugin",
                    help="installed similarities to compare with (script: Painless)")
    ap.add_argument("--sweep-queries", type=int, default=2000, help="0: no sweep timing")
    ap.add_argument("--sweep-repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep-indices", action="store_true")
    ap.add_argument("--out", type=Path, default=BENCHMARKS / "querytime" / "results.json")
    return ap.parse_args(argv)


def load_corpus(name: str, corpus_dir: Path, queries: int, seed: int) -> Corpus:
    if name == "go":
        return Corpus("go-code2doc", demo.load_task(max_queries=queries, seed=seed))
    path = corpus_dir / f"{name}.jsonl.gz"
    task = code_to_doc(load_pairs(path), max_queries=queries, seed=seed)
    return Corpus(f"{name}-code2doc", task)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    load_before = os.getloadavg()
    qs = tuple(float(x) for x in args.qs.split(","))
    cluster = Cluster.connect(ConnectionSettings(url=args.url, timeout=600))
    modes = tuple(Mode(m) for m in args.modes.split(","))
    if Mode.PLUGIN in modes and not install.presence(cluster).everywhere:
        raise SystemExit("the node lacks the qidf plugin: qidf plugin install --port PORT "
                         "(or --modes script)")
    multi_mode = Mode.PLUGIN if Mode.PLUGIN in modes else Mode.SCRIPT
    results: dict[str, Any] = {
        "command": "python -m qidf_research.bench_querytime " + " ".join(sys.argv[1:]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "engine": f"{cluster.engine.distribution} {cluster.engine.version}",
        "qs": list(qs), "seed": args.seed, "corpora": {}}
    made: list[str] = []
    try:
        for i, name in enumerate(args.corpora.split(",")):
            corpus = load_corpus(name, args.corpus_dir, args.queries, args.seed)
            log(f"{corpus.name}: {len(corpus.task.corpus)} documents, "
                f"{len(corpus.task.queries)} queries")
            single, multi = f"{PREFIX}{name}-1", f"{PREFIX}{name}-{args.shards}"
            made += [single, multi]
            corpus.results["documents"] = len(corpus.task.corpus)
            corpus.results["index_seconds"] = build_index(cluster, single, corpus.task.corpus, 1)
            analyse(cluster, single, corpus, log)
            corpus.results["one_shard"] = one_shard(cluster, single, corpus, qs,
                                                    modes, log)
            build_index(cluster, multi, corpus.task.corpus, args.shards)
            corpus.results["several_shards"] = several_shards(cluster, multi, corpus, qs,
                                                              multi_mode, log)
            results["corpora"][corpus.name] = corpus.results
            if i == 0 and args.sweep_queries:
                results["sweep"] = sweep_timing(cluster, single, name, args, log)
    finally:
        if not args.keep_indices:
            for index in made:
                cluster.request("DELETE", f"/{index}", None, {"ignore_unavailable": "true"})
    results["seconds_total"] = time.monotonic() - started
    results["load_avg_before"] = [round(x, 2) for x in load_before]
    results["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(results))
    log(f"wrote {args.out} and {args.out.with_suffix('.md').name}")
    return 0


def sweep_timing(cluster: Cluster, index: str, name: str, args: argparse.Namespace,
                 log: Any) -> dict[str, Any]:
    corpus = load_corpus(name, args.corpus_dir, args.sweep_queries, args.seed + 1)
    log(f"sweep timing: {len(corpus.task.queries)} queries x {len(SWEEP_GRID)} q")
    modes = tuple(Mode(m) for m in args.modes.split(","))
    out = time_sweeps(cluster, index, corpus.task, SWEEP_GRID, args.sweep_repeats, modes, log)
    out["corpus"] = corpus.name
    return out


if __name__ == "__main__":
    raise SystemExit(main())
