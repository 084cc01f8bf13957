"""Sharding and the q-log IDF: does splitting an index into shards cost q-log its gain?

Each shard scores with its own document frequencies and document count unless the search
asks for ``dfs_query_then_fetch`` (one extra round trip that collects index-wide term
statistics first). q-log amplifies differences between rare terms' df, so per-shard df
should hurt it more than it hurts BM25. Measured, for each corpus:

- the same documents in 1, 3 and 12 primary shards (one node; shard statistics do not
  depend on where shards live), each force-merged to one segment per shard;
- NDCG@10 of built-in BM25, of q-log at the q ``qidf predict`` gives (the product's default
  predictor on the index's exact statistics, which are index-wide whatever the sharding),
  and of q-log at every q of a grid (the oracle: the best grid point, per setting), each with
  ``query_then_fetch`` (the default) and ``dfs_query_then_fetch``;
- the latency of both search types at the predicted q and for BM25: one query at a time,
  the two types interleaved query by query, three rounds;
- the pipeline column (``sharding_pipeline``): the predicted q installed with ``--stats
  index`` and the queries sent as plain searches, as a client that knows nothing of qidf
  sends them: NDCG@10, top-10 agreement with explicit dfs, the share of the one-shard gain
  kept, and its latency beside plain query_then_fetch and dfs in one interleaved run.

Corpora are the benchmark's code -> doc tasks (CoIR's direction: the query is a function's
code, the relevant document its docstring), read from the corpus cache
(``QIDF_RESEARCH_CACHE``/corpora, built by ``qidf_research.sources.pinned``; never built here)
or, for ``go``, the shipped Go standard-library pairs. Results go to
``benchmarks/sharding/results.json`` and a generated ``README.md`` (``--corpora`` reruns
some corpora and keeps the others' results):

    QIDF_RESEARCH_CACHE=.qidf nice -n 10 .venv/bin/python -m \\
        qidf_research.bench_sharding --url http://127.0.0.1:9247

The node needs the qidf plugin (``--mode plugin``, the default; the plugin and Painless rank
identically, the plugin is faster). Indices ``qidf-shard-*`` are kept and reused.

``--snapshot`` runs the statistics-snapshot benchmark instead (``sharding_snapshot``: the
snapshot beside plain, explicit dfs and the pipeline, interleaved, and its drift), writing
``benchmarks/sharding/snapshot.json`` and ``snapshot.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing, queries, runs
from qidf_ctl.evaluation.bootstrap import paired_bootstrap
from qidf_ctl.evaluation.pairs import load_pairs
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.evaluation.tasks import RetrievalTask, code_to_doc
from qidf_ctl.predictors import DEFAULT_PREDICTOR, predict_for_index
from qidf_ctl.similarity import Mode, QlogParams
from qidf_ctl.stats import snapshot as snapshot_api
from qidf_ctl.stats.query_sample import from_texts
from qidf_research import sharding_snapshot, sharding_snapshot_report
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.sharding_pipeline import pipeline_setting
from qidf_research.sharding_report import OUT, SHARDS, findings, write_readme

SEARCH_TYPES = ("query_then_fetch", "dfs_query_then_fetch")
GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
QUERIES = 1000
LATENCY_QUERIES = 300
LATENCY_ROUNDS = 3
MEASURE = "NDCG@10"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def corpus_file(language: str) -> Path | None:
    """The pairs file of ``language`` if it exists; never builds one."""
    if language == "go":
        from qidf_ctl.demo import shipped_corpus

        return shipped_corpus("go")
    path = RESEARCH_CACHE / "corpora" / f"{language}.jsonl.gz"
    return path if path.is_file() else None


def ensure_index(cluster: Cluster, name: str, task: RetrievalTask, shards: int) -> None:
    """Index the task's corpus into ``shards`` shards unless ``name`` already holds it."""
    fp = indexing.fingerprint(task.corpus, f"standard/{shards}")
    try:
        meta = cluster.request("GET", index_path(name, "_mapping"))[name]["mappings"].get(
            "_meta") or {}
        if meta.get("qidf_bench") == fp and indexing.doc_count(cluster, name) == len(
                task.corpus):
            return
    except ClusterError as exc:
        if exc.status != 404:
            raise
    started = time.monotonic()
    indexing.create_index(cluster, name, shards=shards)
    indexing.bulk_index(cluster, name, task.corpus, batch_size=5000)
    cluster.request("POST", index_path(name, "_forcemerge"), params={"max_num_segments": "1"})
    cluster.request("PUT", index_path(name, "_mapping"), {"_meta": {"qidf_bench": fp}})
    log(f"indexed {name} ({len(task.corpus):,} documents, {shards} shards) in "
        f"{time.monotonic() - started:.0f}s")


def shard_sizes(cluster: Cluster, name: str) -> list[int]:
    rows = cluster.request("GET", f"/_cat/shards/{name}", params={"format": "json",
                                                                  "h": "shard,prirep,docs"})
    return sorted(int(r["docs"]) for r in rows if r["prirep"] == "p")


def quality(cluster: Cluster, index: str, terms: dict[str, Any], task: RetrievalTask,
            search_type: str) -> tuple[float, float, dict[str, float], runs.Run]:
    """NDCG@10 (mean), seconds for the whole run, per-query NDCG@10, the run."""
    started = time.monotonic()
    run = runs.search_run(cluster, index, indexing.FIELD, terms, k=10, batch_size=50,
                          search_type=search_type)
    seconds = time.monotonic() - started
    scored = score_run(run, task.qrels)
    return scored.mean[MEASURE], seconds, scored.of(MEASURE), run


def latency(cluster: Cluster, index: str, terms: dict[str, Any]) -> dict[str, Any]:
    """Per-query latency of each search type, interleaved query by query (order alternating),
    after one warm-up pass; wall ms seen by the client and the engine's ``took``."""
    qids = sorted(terms)[:LATENCY_QUERIES]
    bodies = {q: {"size": 10, "_source": False,
                  "query": queries.term_query(indexing.FIELD, terms[q])} for q in qids}
    wall: dict[str, list[float]] = {t: [] for t in SEARCH_TYPES}
    took: dict[str, list[float]] = {t: [] for t in SEARCH_TYPES}
    path = index_path(index, "_search")
    for q in qids:  # warm-up
        for t in SEARCH_TYPES:
            cluster.request("POST", path, bodies[q], {"search_type": t})
    for rnd in range(LATENCY_ROUNDS):
        for i, q in enumerate(qids):
            order = SEARCH_TYPES if (i + rnd) % 2 == 0 else SEARCH_TYPES[::-1]
            for t in order:
                started = time.perf_counter()
                resp = cluster.request("POST", path, bodies[q], {"search_type": t})
                wall[t].append((time.perf_counter() - started) * 1000)
                took[t].append(float(resp["took"]))
    out: dict[str, Any] = {}
    for t in SEARCH_TYPES:
        w = sorted(wall[t])
        out[t] = {"p50_ms": statistics.median(w), "p90_ms": w[int(0.9 * (len(w) - 1))],
                  "p99_ms": w[int(0.99 * (len(w) - 1))], "mean_ms": statistics.fmean(w),
                  "took_mean_ms": statistics.fmean(took[t]), "searches": len(w)}
    qtf, dfs = (out[t] for t in SEARCH_TYPES)
    out["dfs_over_qtf"] = {k: dfs[k] / qtf[k] if qtf[k] else None
                           for k in ("p50_ms", "p90_ms", "p99_ms", "mean_ms")}
    return out


def install_q(cluster: Cluster, index: str, q: float | None, mode: Mode) -> None:
    """``q`` (None: BM25) with per-shard statistics: no default pipeline of qidf's."""
    if q is None:
        install.revert(cluster, index)
    else:
        install.apply(cluster, index, QlogParams(q), mode=mode, stats="shard")


def run_corpus(cluster: Cluster, language: str, mode: Mode, n_queries: int) -> dict[str, Any]:
    path = corpus_file(language)
    if path is None:
        raise FileNotFoundError(language)
    pairs = load_pairs(path)
    task = code_to_doc(pairs, max_queries=n_queries, seed=0)
    log(f"{language}: {len(task.corpus):,} documents, {len(task.queries):,} queries")
    names = {n: f"qidf-shard-{language}-{n}sh" for n in SHARDS}
    for n, name in names.items():
        ensure_index(cluster, name, task, n)
    one = names[1]
    install.revert(cluster, one)
    terms = queries.analyze_all(cluster, one, indexing.FIELD, task.queries)
    # The default predictor reads a query sample too (the task's own queries, unlabeled):
    # without it a docstring corpus looks like prose and keeps BM25.
    prediction = predict_for_index(cluster, one, indexing.FIELD, exact=True,
                                   queries=from_texts(task.queries, "the task's queries"))
    q_pred = prediction.q
    log(f"{language}: {DEFAULT_PREDICTOR} predicts q = {q_pred:g} ({prediction.reason})")
    settings: list[dict[str, Any]] = []
    one_shard: dict[str, dict[str, float]] = {}
    one_shard_ndcg: dict[str, float] = {}
    for n, name in names.items():
        dfs_run: runs.Run = {}
        curves: dict[str, dict[str, float]] = {t: {} for t in SEARCH_TYPES}
        seconds: dict[str, dict[str, float]] = {t: {} for t in SEARCH_TYPES}
        per_query: dict[str, dict[str, dict[str, float]]] = {t: {} for t in SEARCH_TYPES}
        try:
            for q in (None, *GRID):
                install_q(cluster, name, q, mode)
                label = "bm25" if q is None else f"{q:g}"
                for t in SEARCH_TYPES:
                    ndcg, secs, pq, run = quality(cluster, name, terms, task, t)
                    curves[t][label], seconds[t][label] = ndcg, secs
                    if q is None or q == q_pred:
                        per_query[t]["bm25" if q is None else "predicted"] = pq
                    if q == q_pred and t == "dfs_query_then_fetch":
                        dfs_run = run
                log(f"{name} {label}: qtf {curves['query_then_fetch'][label]:.4f}, "
                    f"dfs {curves['dfs_query_then_fetch'][label]:.4f}")
            lat = {}
            for label, q in (("bm25", None), ("predicted", q_pred)):
                install_q(cluster, name, q, mode)
                lat[label] = latency(cluster, name, terms)
                log(f"{name} latency {label}: p50 qtf "
                    f"{lat[label]['query_then_fetch']['p50_ms']:.2f} ms, dfs "
                    f"{lat[label]['dfs_query_then_fetch']['p50_ms']:.2f} ms")
            if n == 1:
                one_shard_ndcg = {"bm25": curves["query_then_fetch"]["bm25"],
                                  "predicted": curves["query_then_fetch"][f"{q_pred:g}"]}
            piped = pipeline_setting(cluster, name, terms, task, q_pred, mode, dfs_run,
                                     one_shard_ndcg, LATENCY_QUERIES, LATENCY_ROUNDS, log)
        finally:
            install.revert(cluster, name)
        if n == 1:
            one_shard = per_query["query_then_fetch"]
        for t in SEARCH_TYPES:
            grid = {k: v for k, v in curves[t].items() if k != "bm25"}
            oracle = max(grid, key=lambda k: (round(grid[k], 12), -abs(float(k) - 1)))
            # Paired bootstrap over queries against one shard (same queries, same q).
            versus_one = {label: asdict(paired_bootstrap(per_query[t][label],
                                                         one_shard[label]))
                          for label in per_query[t]}
            settings.append({
                "shards": n, "search_type": t, "bm25": curves[t]["bm25"],
                "predicted_q": q_pred, "predicted": curves[t][f"{q_pred:g}"],
                "oracle_q": float(oracle), "oracle": grid[oracle], "curve": curves[t],
                "run_seconds": seconds[t], "versus_one_shard": versus_one,
            })
        settings[-1]["latency"] = settings[-2]["latency"] = lat
        settings[-1]["shard_documents"] = settings[-2]["shard_documents"] = shard_sizes(
            cluster, name)
        settings.append({"shards": n, **piped, "shard_documents": settings[-1][
            "shard_documents"]})
    return {"language": language, "documents": len(task.corpus), "queries": len(task.queries),
            "corpus_file": str(path.name), "prediction": {
                "q": q_pred, "predictor": prediction.predictor,
                "evidence": prediction.evidence,
                "reason": prediction.reason}, "settings": settings}


def kept_corpora(saved: Path, rerun: set[str]) -> list[dict[str, Any]]:
    """The corpora of an earlier results.json this run did not measure again, each with the
    date and load of the run that did."""
    if not saved.is_file():
        return []
    earlier = json.loads(saved.read_text())
    kept = []
    for corpus in earlier.get("corpora", []):
        if corpus["language"] in rerun:
            continue
        corpus.setdefault("run", {k: earlier.get(k) for k in ("date", "engine", "load_before",
                                                               "load_after")})
        kept.append(corpus)
    return kept


def merged(kept: list[dict[str, Any]], measured: list[dict[str, Any]],
           saved: Path) -> list[dict[str, Any]]:
    """Every corpus once, in the order the earlier results listed them (new ones last)."""
    order = [c["language"] for c in json.loads(saved.read_text()).get("corpora", [])] \
        if saved.is_file() else []
    both = kept + measured
    return sorted(both, key=lambda c: order.index(c["language"]) if c["language"] in order
                  else len(order) + both.index(c))


def snapshot_main(cluster: Cluster, shards: list[int], drift: set[int],
                  documents: int = sharding_snapshot.DOCUMENTS,
                  n_queries: int = sharding_snapshot.QUERIES) -> int:
    """The statistics-snapshot benchmark (``sharding_snapshot``) on the go-large slice."""
    path = corpus_file("go-large")
    if path is None:
        log(f"go-large: no corpus file in {RESEARCH_CACHE / 'corpora'}")
        return 1
    started, load_before = time.monotonic(), os.getloadavg()[0]
    task, outside = sharding_snapshot.slice_task(load_pairs(path), documents, n_queries)
    log(f"snapshot benchmark: {len(task.corpus):,} documents, {len(task.queries):,} queries")
    settings = [sharding_snapshot.shard_setting(cluster, task, outside, n, log, ensure_index,
                                                drift=n in drift) for n in shards]
    jvm = cluster.request("GET", "/_nodes/stats/jvm")["nodes"]
    heap = next(iter(jvm.values()))["jvm"]["mem"]["heap_max_in_bytes"]
    result: dict[str, Any] = {"engine": str(cluster.engine), "heap": f"{heap / 2**30:.1f} GiB",
              "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
              "q": sharding_snapshot.Q, "min_doc_freq": snapshot_api.MIN_DOC_FREQ,
              "documents": len(task.corpus),
              "queries": len(task.queries), "rounds": sharding_snapshot.ROUNDS,
              "load_before": load_before, "load_after": os.getloadavg()[0],
              "minutes": (time.monotonic() - started) / 60, "settings": settings}
    result["targets"] = sharding_snapshot_report.targets(result)
    result["findings"] = sharding_snapshot_report.findings(result)
    OUT.mkdir(parents=True, exist_ok=True)
    sharding_snapshot_report.JSON.write_text(json.dumps(result, indent=1) + "\n")
    sharding_snapshot_report.write(result)
    print("\n".join(result["targets"] + result["findings"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("QIDF_URL", "http://127.0.0.1:9247"))
    ap.add_argument("--corpora", default="go-large,java")
    ap.add_argument("--queries", type=int, default=QUERIES)
    ap.add_argument("--mode", default="plugin", choices=("plugin", "script"))
    ap.add_argument("--readme-only", action="store_true")
    ap.add_argument("--snapshot", action="store_true",
                    help="the statistics-snapshot benchmark (snapshot.json, snapshot.md)")
    ap.add_argument("--snapshot-shards", default="1,3,12")
    ap.add_argument("--snapshot-drift", default="3,12")
    ap.add_argument("--snapshot-documents", type=int, default=sharding_snapshot.DOCUMENTS)
    ap.add_argument("--snapshot-min-df", type=int, default=snapshot_api.MIN_DOC_FREQ,
                    help="terms below this index-wide df are left out of the snapshot")
    args = ap.parse_args(argv)
    saved = OUT / "results.json"
    if args.snapshot and args.readme_only:
        sharding_snapshot_report.write(json.loads(sharding_snapshot_report.JSON.read_text()))
        return 0
    if args.snapshot:
        snapshot_api.MIN_DOC_FREQ = args.snapshot_min_df  # what every take of this run sends
        return snapshot_main(Cluster.connect(ConnectionSettings.from_options(url=args.url)),
                             [int(x) for x in args.snapshot_shards.split(",") if x],
                             {int(x) for x in args.snapshot_drift.split(",") if x},
                             args.snapshot_documents, args.queries)
    if args.readme_only:
        write_readme(json.loads(saved.read_text()))
        return 0
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    mode = Mode(args.mode)
    started, load_before = time.monotonic(), os.getloadavg()[0]
    corpora = []
    for language in [x for x in args.corpora.split(",") if x]:
        if corpus_file(language) is None:
            log(f"{language}: no corpus file in {RESEARCH_CACHE / 'corpora'}; skipped")
            continue
        corpora.append(run_corpus(cluster, language, mode, args.queries))
        corpora[-1]["run"] = {"date": time.strftime("%Y-%m-%d"), "engine": str(cluster.engine),
                              "load_before": load_before, "load_after": os.getloadavg()[0]}
    jvm = cluster.request("GET", "/_nodes/stats/jvm")["nodes"]
    heap = next(iter(jvm.values()))["jvm"]["mem"]["heap_max_in_bytes"]
    result = {"engine": str(cluster.engine), "mode": mode.value,
              "heap": f"{heap / 2**30:.1f} GiB", "cpus": os.cpu_count(),
              "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
              "queries": args.queries, "grid": list(GRID), "shards": list(SHARDS),
              "load_before": load_before, "load_after": os.getloadavg()[0],
              "minutes": (time.monotonic() - started) / 60,
              "latency_queries": LATENCY_QUERIES, "latency_rounds": LATENCY_ROUNDS,
              "corpora": merged(kept_corpora(saved, {c["language"] for c in corpora}),
                                corpora, saved)}
    result["findings"] = findings(result)
    OUT.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(result, indent=1) + "\n")
    write_readme(result)
    print("\n".join(result["findings"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
