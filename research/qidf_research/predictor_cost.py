"""What the default predictor adds to ``qidf stats`` on a 1M-document index, measured.

The index: every distinct text the benchmark has (the Debian prose corpora, and the code and
the docstrings of every language) in one ``standard`` field, about a million documents, one
shard. Timed: ``qidf stats --sample`` (the default 5,000) as ``predict`` runs it, and inside
it the parts qidf-content adds: the raw-text sample (one ``random_score`` search for 1,000
``_source`` values), the text shape of those values, the shapes of the df = 1 terms; then
the query sample (1,000 queries read from a file, no cluster) and the decision.

    .venv/bin/python -m qidf_research.predictor_cost --url http://127.0.0.1:9200

Writes benchmarks/retrieval/cost.json. The index is left in place (``qidf-cost-1m``; about
2 GB) unless ``--delete``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.evaluation import indexing
from qidf_ctl.evaluation.files import write_queries
from qidf_ctl.predictors import DEFAULT_PREDICTOR, predict
from qidf_ctl.stats import index_stats
from qidf_ctl.stats.hapax_terms import hapax_terms
from qidf_ctl.stats.query_sample import query_sample
from qidf_ctl.stats.read import has_field_query
from qidf_ctl.stats.source_sample import source_texts
from qidf_ctl.stats.text_shape import text_shape
from qidf_research.cli_runs import run_cli
from qidf_research.languages import ALL
from qidf_research.paths import BENCHMARKS, CACHE

INDEX = "qidf-cost-1m"
TARGET = 1_000_000


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def corpus() -> tuple[dict[str, str], dict[str, str]]:
    """About a million distinct documents, and 1,000 queries (half code, half prose)."""
    from qidf_research.bench_tasks import load_corpus
    from qidf_research.sources import debian_prose as dp

    docs: dict[str, str] = {}
    queries: dict[str, str] = {}
    for p in dp.load("debmulti", log):
        docs[p.id] = p.doc
        if len(queries) < 500:
            queries[p.id] = p.query
    for lang in ("go-large", *[x for x in ALL if x != "go"]):
        for pair in load_corpus(lang):
            docs[f"code:{pair.id}"] = pair.code
            docs[f"doc:{pair.id}"] = pair.doc
            if len(queries) < 1000:
                queries[f"code:{pair.id}"] = pair.code
        if len(docs) >= TARGET:
            break
    return dict(list(docs.items())[:TARGET]), queries


def timed(fn: Any) -> tuple[Any, float]:
    started = time.monotonic()
    out = fn()
    return out, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None)
    ap.add_argument("--delete", action="store_true")
    args = ap.parse_args(argv)
    settings = ConnectionSettings.from_options(url=args.url)
    cluster = Cluster.connect(settings)
    docs, queries = corpus()
    log(f"{len(docs):,} documents")
    indexing.ensure_index(cluster, INDEX, docs, progress=log)
    path = CACHE / "cost-queries.jsonl"
    write_queries(queries, path)
    field = indexing.FIELD
    query = has_field_query([field])
    runs: list[dict[str, float]] = []
    for seed in (0, 1, 2):
        stats, total = timed(lambda s=seed: index_stats(cluster, INDEX, field=field, seed=s))
        f = stats.fields[0]
        texts, t_source = timed(lambda s=seed: source_texts(cluster, INDEX, field, query,
                                                             seed=s))
        _, t_shape = timed(lambda t=texts: text_shape(t))
        sample, t_queries = timed(lambda: query_sample(path))
        decision, t_decide = timed(lambda f=f, q=sample: predict(f, DEFAULT_PREDICTOR, INDEX,
                                                                 q))
        runs.append({"stats_seconds": total, "source_sample_seconds": t_source,
                     "text_shape_seconds": t_shape, "query_sample_seconds": t_queries,
                     "decide_seconds": t_decide, "q": decision.q,
                     "sampled_documents": float(f.sampled_documents or 0)})
        log(f"seed {seed}: stats {total:.1f}s, source sample {t_source:.2f}s, shape "
            f"{t_shape:.2f}s, queries {t_queries:.2f}s, decide {t_decide:.3f}s, q {decision.q}")
    hapax = time_hapax_terms(cluster, field)
    cli = [cli_predict(settings.url, path, with_queries) for with_queries in
           (False, True, False, True)]
    out = {"index": INDEX, "documents": len(docs), "engine": str(cluster.engine),
           "runs": runs, "hapax_terms_seconds": hapax, "cli": cli}
    (BENCHMARKS / "retrieval" / "cost.json").write_text(json.dumps(out, indent=1) + "\n")
    (BENCHMARKS / "retrieval" / "cost.md").write_text(markdown(out))
    if args.delete:
        cluster.request("DELETE", f"/{INDEX}")
    return 0


def cli_predict(url: str, queries: Path, with_queries: bool) -> dict[str, Any]:
    """``qidf predict INDEX [--queries FILE]`` as a user runs it: a child process, from start
    to exit (imports, connection, statistics, the decision), and the load before it. No
    memory column: a child forked from this process (which holds the million documents)
    reports this process's resident size as its own peak."""
    load = os.getloadavg()[0]
    run = run_cli(url, [INDEX, *(["--queries", str(queries)] if with_queries else [])],
                  command="predict")
    reason = run["out"]["reason"]
    return {"queries": with_queries, "seconds": run["seconds"], "load1": load,
            "q": run["out"]["q"], "reason": reason, "reason_lines": len(reason.splitlines())}


def markdown(out: dict[str, Any]) -> str:
    runs = out["runs"]
    lines = [
        "# What the default predictor costs on a million documents",
        "",
        "Generated by `python -m qidf_research.predictor_cost` (its docstring has the "
        f"method). Index `{out['index']}`: {out['documents']:,} distinct real texts (the "
        "Debian prose corpora, the code and the docstrings of every language) in one "
        f"`standard` field, one shard, {out['engine']}; 2 shared CPUs.",
        "",
        "## `qidf predict` as a user runs it (child process, start to exit)",
        "",
        "| query sample | wall s | load | q | reason (lines) |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [f"| {'1,000 queries' if c['queries'] else 'none'} | {c['seconds']:.1f} | "
              f"{c['load1']:.1f} | {c['q']:g} | {c['reason_lines']} |"
              for c in out["cli"]]
    lines += ["", "## Inside it, in process (seeds 0-2)", "",
              "| part | seconds |", "|---|---|"]
    for key, label in (("stats_seconds", "sampled statistics (5,000 documents)"),
                       ("source_sample_seconds", "raw-text sample (1,000 `_source` values)"),
                       ("text_shape_seconds", "text shape of those values"),
                       ("query_sample_seconds", "query sample (1,000 queries from a file)"),
                       ("decide_seconds", "the decision")):
        vals = [r[key] for r in runs]
        lines.append(f"| {label} | {min(vals):.3f}-{max(vals):.3f} |")
    lines += [f"| df = 1 term shapes (on a sampled pass's terms) | "
              f"{out['hapax_terms_seconds']:.3f} |", "",
              f"Target (issue 11): <= 10 s on 1M documents, reason on one line. Slowest CLI "
              f"run: {max(c['seconds'] for c in out['cli']):.1f} s; longest reason: "
              f"{max(c['reason_lines'] for c in out['cli'])} line.", ""]
    return "\n".join(lines)


def time_hapax_terms(cluster: Cluster, field: str) -> float:
    """The df = 1 term shapes alone, on a sampled pass's terms (the part ``stats`` adds)."""
    import numpy as np

    from qidf_ctl.stats.collect import DEFAULT_SAMPLE
    from qidf_ctl.stats.entries import read_entries
    from qidf_ctl.stats.read import engine_df, uniform_docs

    acc, _ = read_entries(cluster, INDEX, [field],
                          uniform_docs(cluster, INDEX, has_field_query([field]),
                                       DEFAULT_SAMPLE, 0), lambda n: None)
    words = acc[field].terms()
    df = engine_df(cluster, INDEX, field, words, 1)
    _, seconds = timed(lambda: hapax_terms(words, np.asarray(df)))
    return seconds


if __name__ == "__main__":
    sys.exit(main())
