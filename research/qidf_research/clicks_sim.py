"""Does q chosen from clicks recover what q chosen from judgments does? Simulated sessions
from judged queries, through the product's own UBI reader, click model and guard.

**The clicks are simulated**: no person or agent clicked anything here. Each judged task (real
queries with real judgments: code -> docstring tasks built from real functions, and the
file-localization task of rust-lang/cargo's commit history) is split into a choosing half and
a reporting half (by time for the history, seeded at random otherwise), at most ``POOL``
queries each.

- **Judged mode**: NDCG@10 of the choosing half's queries at every q of sweep's grid, then
  sweep's guard (``evaluation.recommend``) against the label-free q: that q is scored on the
  reporting half.
- **Click mode**: ``S`` sessions (100, 1,000, 10,000). A session picks a query of the
  choosing half with Zipf popularity (weight 1/k for the k-th most popular, a seeded
  order; real query logs have a head and a long tail), is shown a ranking, and clicks each
  result at rank r with probability
  ``gamma_r * alpha``: the documented position-based model with ``gamma_r = 1/r`` (eta = 1)
  and ``alpha = 1`` for a judged-relevant document, ``EPSILON`` = 0.1 for any other (Joachims,
  Swaminathan and Schnabel 2017's simulation). Three scenarios: a *search page*, BM25's
  top 10 (what a search front end served before qidf); an *agent*, the top 50 at the
  label-free q (what ``qidf mcp`` serves without judgments; ``search_code`` returns up to
  50 hits); an *a/b search page*, the top 10 of BM25 and of q 0.5 on alternate sessions
  (an operator trying q-log on half the traffic, as UBI's ``search_config`` records). The
  sessions become UBI queries and click
  events, read by ``qidf_ctl.judgments.ubi``, graded by ``qidf_ctl.judgments.from_ubi``
  (the position-based model fitted by EM, the product's defaults), and the same guard
  chooses q from those judgments, measured as the product measures click judgments
  (NDCG@10 over judged documents only: clicks judge only what was shown; here over each q's
  top 100, searched once per task, where the product orders every judged document from
  its term scores); that q is scored on the reporting half with the *real* judgments.

Recovery of a mode = (NDCG@10 at its q - at BM25) / (at the oracle q - at BM25) on the
reporting half, the oracle being the best q of the grid there. The target: at 1,000
sessions, the click mode's mean recovery >= 0.95 of the judged mode's.

    nice -n 10 .venv/bin/python -m qidf_research.clicks_sim --url http://127.0.0.1:9200 \\
        --tasks go,ruby,php --cargo-judgments /tmp/cargo-judgments

(``--cargo-judgments``: a folder ``qidf judgments git`` wrote for rust-lang/cargo's newest
10,000 commits against the index of its files, ``bench_judgments``'s ``qidf-judgments-bench``;
left out, that task is skipped; ``--tasks`` defaults to go, ruby, php and haskell, whose
corpora other than Go's come from the research cache) writes
``benchmarks/judgments/clicks.json`` and ``clicks.md``. Every search is the engine's own
(query-time q-log), run once per task and q.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.demo.corpus import shipped_corpus
from qidf_ctl.evaluation import code_to_doc, indexing, load_pairs
from qidf_ctl.evaluation.files import Qrels
from qidf_ctl.evaluation.recommend import recommend
from qidf_ctl.evaluation.runs import Run
from qidf_ctl.evaluation.sweep import DEFAULT_GRID
from qidf_ctl.judgments import read_folder, ubi
from qidf_ctl.judgments.decide import (
    Searcher,
    analyse,
    label_free_reference,
    per_query_ndcg,
)
from qidf_ctl.judgments.from_ubi import judgments_from_log, query_key
from qidf_ctl.progress import no_bar
from qidf_ctl.querytime import QueryTime, inspect
from qidf_research.paths import BENCHMARKS, CACHE

OUT = BENCHMARKS / "judgments"
POOL = 500
SESSIONS = (100, 1_000, 10_000)
SEEDS = 5
# Results shown, and the q (or q's, alternating by session) that served them; "ref" is the
# label-free q.
SCENARIOS: dict[str, tuple[int, tuple[Any, ...]]] = {
    "search page": (10, (1.0,)), "agent": (50, ("ref",)),
    "a/b search page": (10, (1.0, 0.5))}
EPSILON = 0.1
BM25 = 1.0
CONDENSED_DEPTH = 100  # judged documents beyond it are ranked out (the product orders all)
CODE_TASKS = ("go", "ruby", "php", "haskell")  # the shipped Go corpus; the rest from the cache


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@dataclass
class Task:
    """A judged task on an index: the choosing and reporting halves."""

    name: str
    index: str
    queries: dict[str, str]
    qrels: Qrels
    choose: list[str]
    report: list[str]
    split: str


def code_task(cluster: Cluster, language: str) -> Task | None:
    """CoIR's code -> docstring task of ``language``, indexed once (reused by fingerprint)."""
    path = shipped_corpus("go") if language == "go" else CACHE / "corpora" / \
        f"{language}.jsonl.gz"
    if not Path(path).is_file():
        log(f"skipping {language}: no corpus at {path}")
        return None
    task = code_to_doc(load_pairs(path), max_queries=2 * POOL, seed=0)
    index = f"qidf-clicks-{language}"
    indexing.ensure_index(cluster, index, task.corpus)
    ids = list(task.queries)
    random.Random(0).shuffle(ids)
    return Task(f"{language} code->doc", index, task.queries, task.qrels, ids[:POOL],
                ids[POOL:2 * POOL], "seeded halves")


def git_task(folder: Path, index: str) -> Task:
    judged = read_folder(folder)
    older = [q for q in judged.older if q in judged.qrels]
    newer = [q for q in judged.newer if q in judged.qrels]
    rng = random.Random(0)
    return Task("cargo file localization (git history)", index, judged.queries, judged.qrels,
                sorted(rng.sample(older, min(POOL, len(older)))),
                sorted(rng.sample(newer, min(POOL, len(newer)))), "by commit time")


def runs_by_q(cluster: Cluster, task: Task, field: str | None) -> tuple[dict[float, Run], str]:
    """Top-100 runs of every query of the task at every q of the grid, and the index's
    text field; kept in the research cache (``judgments/``), keyed by what they depend on."""
    target = inspect(cluster, task.index, field)
    key = hashlib.sha256(json.dumps([task.index, target.field, task.choose, task.report,
                                     DEFAULT_GRID, CONDENSED_DEPTH,
                                     indexing.doc_count(cluster, task.index)]).encode()
                         ).hexdigest()[:16]
    cached = CACHE / "judgments" / f"runs-{task.index}-{key}.json"
    if cached.is_file():
        stored = json.loads(cached.read_text())
        return {float(q): {k: [tuple(h) for h in v] for k, v in run.items()}
                for q, run in stored.items()}, target.field
    qt = QueryTime(cluster, target, BM25)
    texts = {q: task.queries[q] for q in [*task.choose, *task.report]}
    terms = analyse(qt, texts, no_bar)
    searcher = Searcher(cluster, qt, None)
    out = {}
    for q in DEFAULT_GRID:
        out[q] = searcher.run(terms, q, lambda n: None, CONDENSED_DEPTH)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps({f"{q:g}": run for q, run in out.items()}))
    return out, target.field


def ndcg(run: Run, qrels: Qrels, ids: list[str], condensed: bool = False) -> dict[str, float]:
    """NDCG@10 of ``ids`` as the decision measures it (``condensed``: judged documents
    only, as click judgments are measured)."""
    return per_query_ndcg({q: run.get(q, []) for q in ids}, {q: qrels[q] for q in ids},
                          condensed)


def recovery(value: float, bm25: float, oracle: float) -> float | None:
    gain = oracle - bm25
    return None if gain <= 1e-9 else (value - bm25) / gain


def choose_q(runs: Mapping[float, Run], qrels: Qrels, ids: list[str], reference: float,
             source: str, condensed: bool = False) -> tuple[float, float]:
    """The guard's q over ``ids`` judged by ``qrels``, and the best-mean q."""
    per_q = {q: ndcg(run, qrels, ids, condensed) for q, run in runs.items()}
    chosen = recommend(per_q, reference, source)
    return chosen.q, chosen.tested_q


def simulate(task: Task, served: list[Run], depth: int, sessions: int, seed: int) -> ubi.Log:
    """Sessions as UBI documents, through the product's reader (module docstring); session
    ``n`` is shown the ranking ``served[n % len(served)]``."""
    rng = np.random.default_rng(seed)
    order = list(task.choose)
    random.Random(seed).shuffle(order)
    weights = 1.0 / np.arange(1, len(order) + 1)
    picks = rng.choice(len(order), size=sessions, p=weights / weights.sum())
    gamma = 1.0 / np.arange(1, depth + 1)
    reader = ubi.Log()
    where = ubi.Where("simulated session")
    for n, pick in enumerate(picks):
        qid = order[pick]
        hits = [doc for doc, _ in served[n % len(served)].get(qid, [])[:depth]]
        query_id = f"s{seed}-{n}"
        reader.add({"query_id": query_id, "user_query": task.queries[qid],
                    "timestamp": 1_700_000_000_000 + n * 1000,
                    "query_response_hit_ids": hits}, "query", where)
        relevant = {d for d, r in task.qrels[qid].items() if r > 0}
        for rank, doc in enumerate(hits, 1):
            attractive = 1.0 if doc in relevant else EPSILON
            if rng.random() < gamma[rank - 1] * attractive:
                reader.add({"query_id": query_id, "action_name": "click",
                            "event_attributes": {"object": {"object_id": doc},
                                                 "position": {"ordinal": rank - 1}}},
                           "event", where)
    return reader


def click_qrels(task: Task, reader: ubi.Log) -> Qrels:
    """The click judgments, keyed by the task's query ids (matched by text)."""
    found = judgments_from_log(reader, "simulated sessions")
    by_key = {query_key(task.queries[q]): q for q in task.choose}
    out: Qrels = {}
    for ubi_id, text in found.queries.items():
        qid = by_key.get(query_key(text))
        if qid is not None:
            out[qid] = found.qrels[ubi_id]
    return out


def run_task(cluster: Cluster, task: Task, seeds: int) -> dict[str, Any]:
    started = time.monotonic()
    runs, field = runs_by_q(cluster, task, None)
    log(f"{task.name}: {len(runs)} q x {len(task.choose) + len(task.report)} queries searched "
        f"({time.monotonic() - started:.0f}s)")
    ref_q, ref_source, _ = label_free_reference(cluster, task.index, field)
    report = {q: ndcg(run, task.qrels, task.report) for q, run in runs.items()}
    mean = {q: sum(v.values()) / len(v) for q, v in report.items()}
    oracle_q = max(mean, key=lambda q: (mean[q], -abs(q - 1)))
    judged_q, judged_best = choose_q(runs, task.qrels, task.choose, ref_q, ref_source)
    judged = recovery(mean[judged_q], mean[BM25], mean[oracle_q])
    result: dict[str, Any] = {
        "task": task.name, "index": task.index, "split": task.split,
        "choose_queries": len(task.choose), "report_queries": len(task.report),
        "reference_q": ref_q, "reference": ref_source,
        "report_ndcg10": {f"{q:g}": round(v, 4) for q, v in mean.items()},
        "oracle_q": oracle_q, "judged": {"q": judged_q, "best_mean_q": judged_best,
                                         "recovery": judged}, "clicks": {}}
    for scenario, (depth, arms) in SCENARIOS.items():
        served = [runs[min(runs, key=lambda g: abs(g - (ref_q if a == "ref" else a)))]
                  for a in arms]
        result["clicks"][scenario] = {}
        for sessions in SESSIONS:
            rows = []
            for seed in range(seeds):
                reader = simulate(task, served, depth, sessions, seed)
                qrels = click_qrels(task, reader)
                ids = [q for q in task.choose if q in qrels]
                q, best = (choose_q(runs, qrels, ids, ref_q, ref_source, condensed=True)
                           if ids else (ref_q, ref_q))
                relevant_found = sum(1 for q_ in ids if any(
                    g > 0 and task.qrels[q_].get(d, 0) > 0 for d, g in qrels[q_].items()))
                rows.append({"seed": seed, "q": q, "best_mean_q": best,
                             "judged_queries": len(ids),
                             "queries_with_a_truly_relevant_judgment": relevant_found,
                             "clicks": reader.counts.clicks,
                             "recovery": recovery(mean[q], mean[BM25], mean[oracle_q])})
            values = [r["recovery"] for r in rows if r["recovery"] is not None]
            result["clicks"][scenario][str(sessions)] = {
                "runs": rows, "mean_recovery": float(np.mean(values)) if values else None,
                "min_recovery": float(np.min(values)) if values else None,
                "share_of_judged": (float(np.mean(values)) / judged
                                    if values and judged else None)}
            log(f"{task.name}, {scenario}: {sessions:,} sessions: mean recovery "
                f"{result['clicks'][scenario][str(sessions)]['mean_recovery']} (judged "
                f"{judged})")
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# q from clicks against q from judgments (simulated sessions)",
        "",
        "Generated by `python -m qidf_research.clicks_sim` (its docstring has the method and "
        "the command). **The sessions are simulated** with the position-based model "
        f"(examination 1/rank, attractiveness 1 for a judged-relevant result and "
        f"{EPSILON} for any other; query popularity Zipf over the choosing half of at most "
        f"{POOL} queries); the click judgments come from the product's UBI reader and click "
        "model, q from sweep's guard against the label-free q, as `apply --q auto "
        "--judgments` chooses it. Scenarios: *search page*, BM25's top 10 shown; *agent*, "
        "the top 50 at the label-free q shown; *a/b search page*, the top 10 of BM25 and "
        "of q 0.5 on alternate sessions.",
        "",
        f"Recovery = (NDCG@10 at the chosen q - at BM25) / (at the oracle q - at BM25) on the "
        f"reporting half, with the real judgments; clicks: mean over {result['seeds']} seeds "
        "(minimum in brackets) and the q chosen; share = clicks' mean recovery / the judged "
        "mode's. Target: share >= 0.95 at 1,000 sessions.",
        "",
        "| task | ref q | oracle q | judged q | judged recovery |",
        "|---|---:|---:|---:|---:|",
    ]
    for t in result["tasks"]:
        judged = t["judged"]["recovery"]
        lines.append(f"| {t['task']} | {t['reference_q']:g} | {t['oracle_q']:g} | "
                     f"{t['judged']['q']:g} | {'n/a' if judged is None else f'{judged:.3f}'} |")
    for scenario in SCENARIOS:
        lines += ["", f"## {scenario.capitalize()}", "",
                  "| task | " + " | ".join(f"{s:,} sessions: q (mean recovery [min], share)"
                                           for s in SESSIONS) + " |",
                  "|---|" + "---|" * len(SESSIONS)]
        for t in result["tasks"]:
            cells = []
            for s in SESSIONS:
                c = t["clicks"][scenario][str(s)]
                qs = sorted({r["q"] for r in c["runs"]})
                mean = "n/a" if c["mean_recovery"] is None else f"{c['mean_recovery']:.3f}"
                low = "" if c["min_recovery"] is None else f" [{c['min_recovery']:.3f}]"
                share = "" if c["share_of_judged"] is None else f", {c['share_of_judged']:.3f}"
                cells.append(f"{'/'.join(f'{q:g}' for q in qs)} ({mean}{low}{share})")
            lines.append(f"| {t['task']} | " + " | ".join(cells) + " |")
        shares = [t["clicks"][scenario]["1000"]["share_of_judged"] for t in result["tasks"]
                  if t["clicks"][scenario]["1000"]["share_of_judged"] is not None]
        if shares:
            lines += ["", f"Mean share at 1,000 sessions over the tasks with a gain: "
                      f"{np.mean(shares):.3f} (worst {min(shares):.3f})."]
    lines += ["", f"Machine: {result['cpus']} CPUs shared with other jobs, load before "
              f"{result['load_before']}; {result['date']}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", default="http://127.0.0.1:9200")
    parser.add_argument("--tasks", default=",".join(CODE_TASKS))
    parser.add_argument("--cargo-judgments", type=Path)
    parser.add_argument("--cargo-index", default="qidf-judgments-bench")
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url, timeout=300))
    before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    tasks = [t for t in (code_task(cluster, lang) for lang in args.tasks.split(",") if lang)
             if t is not None]
    if args.cargo_judgments:
        tasks.append(git_task(args.cargo_judgments, args.cargo_index))
    result: dict[str, Any] = {
        "tasks": [], "seeds": args.seeds, "sessions": list(SESSIONS), "pool": POOL,
        "scenarios": SCENARIOS, "epsilon": EPSILON, "cpus": os.cpu_count(),
        "load_before": before, "date": ""}
    args.out.mkdir(parents=True, exist_ok=True)
    for task in tasks:  # written after each task: a long run keeps what it measured
        result["tasks"].append(run_task(cluster, task, args.seeds))
        result["date"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        (args.out / "clicks.json").write_text(json.dumps(result, indent=2) + "\n")
        (args.out / "clicks.md").write_text(markdown(result))
    log(f"wrote {args.out / 'clicks.md'}")


if __name__ == "__main__":
    main()
