"""The held-out check of issue 11: the shipped default against BM25 on the large prose
corpora and the mixed index, which no predictor constant was fitted on.

A lighter pass than ``bench_retrieval`` (no 18-point sweep at depth 1,000, no bootstrap),
so that the 100K-245K-document indices fit in an hour on one core:

    .venv/bin/python -m qidf_research.bench_heldout            # then
    .venv/bin/python -m qidf_research.bench_heldout --report > benchmarks/retrieval/heldout.md

Per task, in this order (each number written to benchmarks/retrieval/heldout.json as soon as
it is measured, so a stopped run keeps what it measured): BM25; the q that ``apply --q auto``
picks with the product's defaults (sampled statistics), with and without the task's queries
as the unlabeled sample (``--queries``), and the q of qidf-gate, the default before; each of
those q installed and searched; then, with ``--oracle``, a coarse grid around 1 for the
oracle. NDCG@10 only (searches to depth 10). q = 1 is installed and searched like any q,
not assumed equal to BM25.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.evaluation import RetrievalTask, evaluate, indexing, runs
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.predictors import DEFAULT_PREDICTOR, predict_for_index
from qidf_ctl.similarity import QlogParams
from qidf_ctl.stats.query_sample import from_texts
from qidf_research.paths import REPO
from qidf_research.pipeline import PREFIX
from qidf_research.readings import summarize

OUT = REPO / "benchmarks" / "retrieval" / "heldout.json"
OLD_DEFAULT = "qidf-gate"
ORACLE_GRID = (0.6, 0.7, 0.8, 0.9, 1.1)  # with 1.0 and the predictors' q: a coarse oracle
SAFETY = 0.005  # the target: loss against BM25 at most this much NDCG@10


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def tasks(queries: int, only: set[str] | None) -> list[tuple[str, Any]]:
    """(key, builder) in the order measured: the full corpora first (the largest sizes are
    the issue's point), then the nested subsets."""
    from qidf_research.sources import debian_prose as dp

    full: list[tuple[str, Any]] = []
    subsets: list[tuple[str, Any]] = []
    for corpus in ("mixed", "debmulti", "debdocs", "debdesc", "debman"):
        def builder(corpus: str = corpus) -> list[Any]:
            return dp.load(corpus, log)
        pairs_cache: dict[str, list[Any]] = {}

        def make(key: str, size: int | None, corpus: str = corpus,
                 load: Any = builder, cache: dict[str, list[Any]] = pairs_cache
                 ) -> RetrievalTask:
            if corpus not in cache:
                cache[corpus] = load()
            pairs = cache[corpus]
            return dp.task(key, pairs if size is None else dp.nested(pairs, size), queries)

        sizes = {"mixed": 123_021, "debmulti": 244_642, "debdocs": 100_323,
                 "debdesc": 61_447, "debman": 40_813}[corpus]
        for key, size in dp.task_keys(corpus, sizes):
            if only and key not in only:
                continue
            (full if size is None else subsets).append(
                (key, lambda key=key, size=size, make=make: make(key, size)))
    return full + subsets


def ndcg10(cluster: Cluster, index: str, task: RetrievalTask, terms: Any,
           q: float | None) -> float:
    """Mean NDCG@10 with ``q`` installed (None: the index's built-in BM25)."""
    try:
        if q is None:
            install.revert(cluster, index)
        else:
            install.apply(cluster, index, QlogParams(q))
        run = runs.search_run(cluster, index, indexing.FIELD, terms, k=10)
    finally:
        install.revert(cluster, index)
    return float(score_run(run, task.qrels).mean["NDCG@10"])


def measure_task(cluster: Cluster, key: str, task: RetrievalTask, data: dict[str, Any],
                 oracle: bool, save: Any) -> None:
    """Fill ``data`` (this task's entry of heldout.json) with what it still lacks."""
    index = f"{PREFIX}{key}"
    started = time.monotonic()
    indexing.ensure_index(cluster, index, task.corpus, progress=log)
    install.revert(cluster, index)
    data.update(documents=len(task.corpus), queries=len(task.queries))
    points: dict[str, float] = data.setdefault("ndcg10", {})
    predictions: dict[str, Any] = data.setdefault("predictions", {})
    log(f"{key}: analysing {len(task.queries)} queries")
    terms = evaluate.analyze_queries(cluster, index, indexing.FIELD, task.queries)

    def point(q: float | None) -> float:
        label = "bm25" if q is None else f"{q:g}"
        if label not in points:
            points[label] = ndcg10(cluster, index, task, terms, q)
            log(f"{key}: {label} NDCG@10 {points[label]:.4f}")
            save()
        return points[label]

    point(None)
    sample = from_texts(task.queries, "the task's queries")
    for label, predictor, queries in ((DEFAULT_PREDICTOR, DEFAULT_PREDICTOR, None),
                                      (f"{DEFAULT_PREDICTOR}+queries", DEFAULT_PREDICTOR,
                                       sample),
                                      (OLD_DEFAULT, OLD_DEFAULT, None)):
        if label not in predictions:
            t0 = time.monotonic()
            p = predict_for_index(cluster, index, indexing.FIELD, predictor=predictor,
                                  queries=queries)
            predictions[label] = {"q": p.q, "reason": p.reason, "ambiguous": p.ambiguous,
                                  "seconds": round(time.monotonic() - t0, 1)}
            log(f"{key}: {label} q={p.q:g}: {p.reason}")
            save()
        point(predictions[label]["q"])
    if oracle:
        for q in (1.0, *ORACLE_GRID):
            point(q)
    data["seconds"] = round(data.get("seconds", 0.0) + time.monotonic() - started, 1)
    save()


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """BM25, the coarse oracle (over the q measured), and each predictor's q and change."""
    points = data.get("ndcg10", {})
    if "bm25" not in points:
        return {}
    bm25 = points["bm25"]
    qs = {k: v for k, v in points.items() if k != "bm25"}
    best = max(qs, key=lambda k: qs[k]) if qs else None
    out: dict[str, Any] = {"bm25": bm25, "oracle": (best, qs[best]) if best else None,
                           "grid": sorted(float(k) for k in qs)}
    for label, p in data.get("predictions", {}).items():
        at = points.get(f"{p['q']:g}")
        out[label] = (p["q"], None if at is None else at - bm25)
    return out


def report(results: dict[str, Any]) -> str:
    """heldout.md: one row per task, then the worst change per corpus and predictor."""
    labels = (DEFAULT_PREDICTOR, f"{DEFAULT_PREDICTOR}+queries", OLD_DEFAULT)

    def cell(value: Any) -> str:
        if value is None:
            return "not measured"
        q, change = value
        return f"{q:g} / " + ("not measured" if change is None else f"{change:+.4f}")

    lines = [
        "# Held-out check: the shipped default on large prose and a mixed index",
        "",
        "Generated by `python -m qidf_research.bench_heldout --report` from heldout.json "
        "(measured by `python -m qidf_research.bench_heldout`; engine "
        f"{results.get('engine', '?')}). No predictor constant was fitted on these corpora. "
        "Cells: q / NDCG@10 change against BM25 (1,000 seeded queries per task, depth 10, "
        "no bootstrap). The predictors run as `apply --q auto` does (sampled statistics); "
        "`+queries`: the task's queries given as the unlabeled sample (`--queries`). Best q: "
        "the best of the q measured (the grid column), an oracle only as fine as that grid.",
        "",
        f"| task | documents | BM25 | best q (NDCG@10) | q grid | {labels[0]} | "
        f"{labels[1]} | {labels[2]} (before) |",
        "|---|---:|---:|---|---|---|---|---|",
    ]
    worst: dict[tuple[str, str], tuple[float, str]] = {}
    ordered = sorted(results["tasks"].items(),
                     key=lambda kv: (kv[0].split("-")[0], kv[1].get("documents", 0)))
    for key, data in ordered:
        s = summary(data)
        if not s:
            lines.append(f"| {key} | {data.get('documents', 0):,} | not measured | | | | | |")
            continue
        oracle = f"{float(s['oracle'][0]):g} ({s['oracle'][1]:.4f})" if s["oracle"] else "—"
        grid = ", ".join(f"{q:g}" for q in s["grid"])
        lines.append(f"| {key} | {data['documents']:,} | {s['bm25']:.4f} | {oracle} | {grid} "
                     f"| {cell(s.get(labels[0]))} | {cell(s.get(labels[1]))} "
                     f"| {cell(s.get(labels[2]))} |")
        family = key.split("-")[0]
        for label in labels:
            value = s.get(label)
            if value is not None and value[1] is not None and (
                    (family, label) not in worst or value[1] < worst[(family, label)][0]):
                worst[(family, label)] = (value[1], key)
    lines += ["", "Recovery of the best measured q's gain (mean / gain-weighted / worst task, "
              "`qidf_research.readings`), over the tasks where that gain is at least 0.005:", "",
              "| " + " | ".join(labels) + " |", "|---|---|---|"]
    cells = []
    for label in labels:
        points = []
        for _, data in ordered:
            s = summary(data)
            value = s.get(label) if s else None
            if s and s["oracle"] and value is not None and value[1] is not None:
                points.append((s["bm25"], s["oracle"][1], s["bm25"] + value[1]))
        r = summarize(points)
        cells.append("no task gains" if r["mean"] is None else
                     f"{r['mean']:.2f} / {r['gain_weighted']:.2f} / {r['worst']:.2f} "
                     f"({r['tasks']} tasks)")
    lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Worst change against BM25 per corpus (all sizes measured); the target is "
              f">= -{SAFETY}.", "",
              f"| corpus | {labels[0]} | {labels[1]} | {labels[2]} (before) |",
              "|---|---|---|---|"]
    for family in sorted({f for f, _ in worst}):
        cells = []
        for label in labels:
            w = worst.get((family, label))
            cells.append("—" if w is None else
                         f"{w[0]:+.4f} ({w[1]}){'' if w[0] >= -SAFETY else ' **fails**'}")
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="cluster (default: the local engine)")
    ap.add_argument("--queries", type=int, default=1000, help="queries per task (seeded)")
    ap.add_argument("--tasks", default="", help="comma-separated task keys (default: all)")
    ap.add_argument("--oracle", action="store_true", help="also the coarse oracle grid")
    ap.add_argument("--report", action="store_true", help="print heldout.md from the json")
    ap.add_argument("--out", default=str(OUT), help="the json read and written")
    args = ap.parse_args(argv)
    out = Path(args.out)
    results: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {"tasks": {}}
    if args.report:
        print(report(results), end="")
        return 0
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    results["engine"] = str(cluster.engine)

    def save() -> None:
        out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")

    only = {k for k in args.tasks.split(",") if k} or None
    for key, make in tasks(args.queries, only):
        task = make()
        log(f"{key}: {len(task.corpus)} documents, {len(task.queries)} queries")
        measure_task(cluster, key, task, results["tasks"].setdefault(key, {}), args.oracle,
                     save)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
