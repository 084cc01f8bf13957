"""The retrieval benchmark: every corpus, BM25 vs q-log, written to benchmarks/retrieval/.

One command regenerates results.json and results.md (the local engine must run, see
`qidf engine start`; every corpus but the shipped Go one is built from the pinned sources in
benchmarks/retrieval/sources.json on first use, into .qidf/corpora/):

    .venv/bin/python -m qidf_research.bench_retrieval

Parts (``--parts``): main (every language x task, standard analyzer: the paper's six, then
Rust, TypeScript and Kotlin), scaling (Go at 1K, 10K and full size; then "go-large", the
stdlib plus the pinned Go modules, at 1K, 10K, 100K and full size), ablation (each
language's code2doc under an identifier-aware analyzer), prose (man pages and the
documentation sets of sources/prose.py: the natural-language controls), largeprose (the
Debian corpora of sources/debian_prose.py, 50K-300K documents, at nested sizes from 1K),
mixed (code and prose in one field), predictor (the study of predictor_fit, from the
curves). Every task also measures the default predictor end to end, without and with the
task's queries as an unlabeled query sample. Finished tasks are cached in .qidf/bench/ and
rerun when their corpus changes (``--force`` reruns them anyway); the tables are rebuilt
from the cache.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.evaluation.pairs import Pair
from qidf_ctl.predictors import DEFAULT_PREDICTOR, clip_q, paper
from qidf_research import pipeline as benchmark
from qidf_research.bench_tasks import load_corpus, log, make_task, subset
from qidf_research.corpora import RetrievalTask
from qidf_research.languages import ALL as LANGUAGES
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.paths import REPO as ROOT

OUT = ROOT / "benchmarks" / "retrieval"
SHIPPED = DEFAULT_PREDICTOR  # measured end to end on every task, as `apply --q auto` runs it
CACHE = RESEARCH_CACHE / "bench"


def paper_q(stats: dict[str, float]) -> float:
    """The product's paper predictor on the benchmark's reading of h_tok (``h_occ``)."""
    return clip_q(paper.paper_q(stats["h_occ"]))


def cached_task(cluster: Cluster, key: str, task: RetrievalTask, analyzer: str,
                force: bool, resamples: int, previous: dict[str, Any] | None = None,
                shipped: bool = True) -> dict[str, Any]:
    """Run one task (index, sweep, deep points) unless its result is cached for the same
    corpus and queries (a rebuilt corpus, e.g. more Go modules, reruns its tasks).

    ``previous`` (the task as results.json holds it) stands in for a missing cache file. A
    cached task is brought up to date without rerunning it (``refresh``); ``shipped=False``
    skips the default predictor's end-to-end points there (a statistics-only pass)."""
    from qidf_ctl.evaluation.indexing import fingerprint

    path = CACHE / f"{key}.json"
    stamp = fingerprint({**task.corpus, **{f"q:{k}": v for k, v in task.queries.items()}},
                        analyzer)
    cached = json.loads(path.read_text()) if path.is_file() else previous
    if cached is not None and not force:
        # Results from before stamps are trusted while their sizes match; a rebuilt corpus
        # of the same size needs --force once.
        same = cached.get("fingerprint") == stamp if "fingerprint" in cached else (
            (cached["documents"], cached["queries"]) == (len(task.corpus), len(task.queries)))
        if same:
            if refresh(cluster, key, task, analyzer, cached, resamples, shipped) or \
                    not path.is_file():
                CACHE.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(cached, indent=1, sort_keys=True))
            return cached
        log(f"{key}: corpus or queries changed since the cached run; rerunning")
    log(f"{key}: {len(task.corpus)} documents, {len(task.queries)} queries, {analyzer}")
    result = benchmark.run_task(cluster, task, f"{benchmark.PREFIX}{key}", analyzer=analyzer,
                                predictors={"paper": paper_q}, shipped=(SHIPPED,),
                                resamples=resamples, progress=log)
    data = asdict(result)
    data["key"] = key
    data["fingerprint"] = stamp
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True))
    log(f"{key}: done in {result.seconds:.0f}s; BM25 "
        f"{result.point('bm25').metrics['NDCG@10']:.4f}, oracle q={result.point('oracle').q:g} "
        f"{result.point('oracle').metrics['NDCG@10']:.4f}")
    return data


def shipped_formula() -> str:
    from qidf_ctl.predictors import get

    return get(SHIPPED).formula


EVIDENCE = "src_code_like_share"  # present once a task has the candidate statistics


def refresh(cluster: Cluster, key: str, task: RetrievalTask, analyzer: str,
            data: dict[str, Any], resamples: int, shipped: bool = True) -> bool:
    """Bring a cached task up to date without rerunning its sweep: the candidate statistics
    it lacks (measured on its index, as a new task would), and the default predictor's end
    to end points (without and with the query sample) when its rule changed since. Returns
    whether anything changed."""
    labels = [benchmark.predicted_label(SHIPPED, w) for w in (False, True)]
    stale = [w for w, label in zip((False, True), labels, strict=True)
             if data.get("predictions", {}).get(label, {}).get("formula") != shipped_formula()]
    missing = EVIDENCE not in data["stats"]
    if not missing and not (shipped and stale):
        return False
    runner = benchmark.TaskRunner(cluster, task, f"{benchmark.PREFIX}{key}", analyzer,
                                  resamples=resamples, progress=log)
    runner.prepare()
    if missing:
        new = benchmark.corpus_stats(cluster, runner.index, sorted(task.corpus), runner.terms,
                                     task.queries) | benchmark.shape_stats(task.corpus,
                                                                           task.queries)
        for name in ("h_occ", "h_vocab", "h_types_df1"):
            old = data["stats"].get(name)
            if old is not None and abs(old - new[name]) > 1e-9:
                log(f"{key}: {name} was {old}, is {new[name]} on the rebuilt index")
        data["stats"] |= {k: v for k, v in new.items() if k not in data["stats"]}
        log(f"{key}: candidate statistics added")
    if shipped and stale:
        runner.measure("bm25", None)
        for with_queries in stale:
            point, prediction = runner.measure_predicted(SHIPPED, with_queries)
            data["points"] = [p for p in data["points"] if p["label"] != point.label] + [
                asdict(point)]
            data.setdefault("predictions", {})[point.label] = prediction
            log(f"{key}: {point.label} q={point.q:g} NDCG@10 {point.metrics['NDCG@10']:.4f}")
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="cluster (default: the local engine)")
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    ap.add_argument("--parts",
                    default="main,scaling,ablation,prose,largeprose,mixed,predictor")
    ap.add_argument("--queries", type=int, default=1000, help="queries per task (seeded)")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--force", action="store_true", help="rerun cached tasks")
    ap.add_argument("--no-go-large", action="store_true",
                    help="skip Go at scale (stdlib + modules from the Go module proxy)")
    ap.add_argument("--stats-only", action="store_true",
                    help="on cached tasks, add missing statistics but do not measure the "
                         "default predictor end to end")
    args = ap.parse_args(argv)
    langs = [x for x in args.languages.split(",") if x]
    parts = set(args.parts.split(","))
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    results: dict[str, Any] = {"tasks": {}, "engine": str(cluster.engine),
                               "queries_per_task": args.queries}
    existing = OUT / "results.json"
    if existing.is_file():  # a run of some parts keeps what the others measured before
        before = json.loads(existing.read_text())
        results["tasks"] = before.get("tasks", {})
        if "predictor" in before:
            results["predictor"] = before["predictor"]
    previous = dict(results["tasks"])

    specs: dict[str, Callable[[], tuple[RetrievalTask, str]]] = {}

    def run(key: str, make: Callable[[], RetrievalTask], analyzer: str = "standard") -> None:
        specs[key] = lambda: (make(), analyzer)
        results["tasks"][key] = cached_task(cluster, key, make(), analyzer, args.force,
                                            args.resamples, previous.get(key),
                                            not args.stats_only)
        write(results)

    corpora: dict[str, list[Pair]] = {}
    for lang in langs:
        try:
            corpora[lang] = load_corpus(lang)
        except (FileNotFoundError, RuntimeError) as exc:
            log(f"{lang}: skipped, corpus not available ({exc})")
    if "main" in parts:
        for lang, pairs in corpora.items():
            for direction in ("code2doc", "doc2code"):
                run(f"{lang}-{direction}",
                    partial(make_task, pairs, direction, args.queries))
    if "scaling" in parts and "go" in corpora:
        for n in (1000, 10_000):
            pairs = subset(corpora["go"], n)
            run(f"go-code2doc-{n // 1000}k", partial(make_task, pairs, "code2doc", args.queries))
    if "scaling" in parts and "go" in langs and not args.no_go_large:
        # Go at the paper's scale: the standard library plus pinned modules.
        large = load_corpus("go-large")
        for n in (1000, 10_000, 100_000):
            if n < len(large):
                pairs = subset(large, n)
                run(f"go-large-code2doc-{n // 1000}k",
                    partial(make_task, pairs, "code2doc", args.queries))
        run("go-large-code2doc", partial(make_task, large, "code2doc", args.queries))
    if "ablation" in parts:  # every language: each one is also a safety case for predictors
        for lang, pairs in corpora.items():
            run(f"{lang}-code2doc-identifier",
                partial(make_task, pairs, "code2doc", args.queries), "identifier")
    if "prose" in parts:
        from qidf_research.sources.pinned import prose_task

        run("manpages-prose", partial(prose_task, args.queries, log))
        try:
            from qidf_research.sources.prose import PROSE_TASKS
        except ImportError:
            PROSE_TASKS = {}
        for key, make_prose in PROSE_TASKS.items():
            try:
                run(key, partial(make_prose, args.queries, log))
            except (FileNotFoundError, RuntimeError) as exc:
                log(f"{key}: skipped, corpus not available ({exc})")
    if "largeprose" in parts or "mixed" in parts:
        from qidf_research.sources import debian_prose as dp

        wanted = [c for c in dp.LARGE_PROSE if "largeprose" in parts]
        wanted += ["mixed"] if "mixed" in parts else []
        for corpus in wanted:
            try:
                prose_pairs = dp.load(corpus, log)
            except (FileNotFoundError, RuntimeError, subprocess.CalledProcessError) as exc:
                log(f"{corpus}: skipped, corpus not available ({exc})")
                continue
            for key, size in dp.task_keys(corpus, len(prose_pairs)):
                chosen = prose_pairs if size is None else dp.nested(prose_pairs, size)
                run(key, partial(dp.task, key, chosen, args.queries))
    if "predictor" in parts:
        from qidf_research.predictor_protocol import fit_and_measure

        results["predictor"] = fit_and_measure(cluster, results, specs, args, log)
    write(results)
    return 0


def write(results: dict[str, Any]) -> None:
    from qidf_research.bench_report import render  # python -m qidf_research.bench_report

    OUT.mkdir(parents=True, exist_ok=True)
    slim = {"engine": results["engine"], "queries_per_task": results["queries_per_task"],
            "tasks": results["tasks"], **({"predictor": results["predictor"]}
                                          if "predictor" in results else {})}
    (OUT / "results.json").write_text(json.dumps(slim, indent=1, sort_keys=True) + "\n")
    (OUT / "results.md").write_text(render(slim))
    plots(results["tasks"])


def plots(tasks: dict[str, Any]) -> None:
    """One NDCG@10-over-q PNG per task, beside the tables."""
    from qidf_ctl.evaluation.plot import plot
    from qidf_ctl.evaluation.sweep import SweepPoint, SweepResult

    for key, t in tasks.items():
        path = OUT / "plots" / f"{key}.png"
        sw = dict(t["sweep"])
        sw["points"] = [SweepPoint(**p) for p in sw["points"]]
        plot(SweepResult(**sw), path, title=f"{key}: {t['documents']:,} documents, "
                                            f"{t['queries']:,} queries")


if __name__ == "__main__":
    sys.exit(main())
