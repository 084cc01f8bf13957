"""The peers benchmark: q-log against every similarity the engine ships, tuned fairly.

For each corpus of the retrieval benchmark, each family's best setting is chosen on a
seeded half of the queries (tuning) and reported on the other half (held out); see
``qidf_research.peers``. One command regenerates benchmarks/retrieval/peers.json and the
peers section of results.md (the local engine must run, see `qidf engine start`; corpora
come from the research cache as for bench_retrieval):

    nice -n 10 .venv/bin/python -m qidf_research.bench_peers

Every finished (corpus, setting, split) is cached in .qidf/peers/ (a rerun resumes; a
changed corpus starts afresh); ``--corpora`` narrows a run to keys or groups (code2doc,
doc2code, prose, identifier, scaling). Indices are named qidf-peers-<corpus> and dropped
once their corpus is done (``--keep-indices`` keeps them).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.evaluation import indexing
from qidf_research.bench_tasks import log
from qidf_research.paths import REPO
from qidf_research.peers import families as fam
from qidf_research.peers import settings as st
from qidf_research.peers.compare import summarize
from qidf_research.peers.corpora import CorpusSpec, select
from qidf_research.peers.measure import ROOT, CorpusBench, Validator
from qidf_research.peers.split import SEED, split_queries
from qidf_research.peers.store import Store

OUT = REPO / "benchmarks" / "retrieval"
PEERS_JSON = OUT / "peers.json"


def shipped_q(bench: CorpusBench) -> tuple[float, dict[str, Any]]:
    """The q ``qidf apply --q auto`` installs on this index (the product's default predictor,
    exact statistics, and, as bench_sharding does, the task's own queries as the unlabeled
    query sample ``--queries`` reads), cached with its formula: a changed predictor is
    measured again. Records written before the query sample was passed lack
    ``query_sample`` and are kept as measured (the report names the predictor per row)."""
    from qidf_ctl.predictors import DEFAULT_PREDICTOR, get, predict_for_index
    from qidf_ctl.stats.query_sample import from_texts

    formula = get(DEFAULT_PREDICTOR).formula
    cached = bench.store.meta().get("shipped")
    if cached and cached.get("formula") == formula and cached.get("query_sample"):
        return float(cached["q"]), cached
    bench.ensure_ready()
    prediction = predict_for_index(bench.cluster, bench.index, indexing.FIELD, exact=True,
                                   queries=from_texts(bench.task.queries,
                                                      "the task's queries"))
    record = {"q": prediction.q, "predictor": prediction.predictor, "formula": formula,
              "reason": prediction.reason, "query_sample": "the task's queries (unlabeled)"}
    bench.store.put_meta("shipped", record)
    return prediction.q, record


def search_all(bench: CorpusBench, full: bool) -> tuple[dict[str, list[st.Setting]],
                                                         dict[str, Any]]:
    """Every family's candidates, measured on the tuning split (the order puts the cheap,
    most informative searches first)."""
    ev = bench.mean
    cands: dict[str, list[st.Setting]] = {"bm25_default": [st.default()]}
    cands["bm25"] = fam.search_bm25(ev)
    cands["qlog"] = fam.search_qlog(ev)
    q, shipped = shipped_q(bench)
    cands["shipped"] = [st.qlog(q)]
    cands["joint"] = fam.search_joint(ev, cands["qlog"], cands["bm25"])
    cands["lm_dirichlet"] = fam.search_lm_dirichlet(ev)
    cands["lm_jelinek_mercer"] = fam.search_lm_jelinek_mercer(ev)
    cands["dfr"] = fam.search_dfr(ev, full)
    cands["dph_like"] = fam.dph_like()
    cands["ib"] = fam.search_ib(ev, full)
    cands["dfi"] = fam.search_dfi(ev)
    cands["idf_gamma"] = fam.search_idf_gamma(ev)
    return cands, shipped


def run_corpus(cluster: Cluster, spec: CorpusSpec, queries: int, resamples: int,
               validator: Validator, keep_index: bool) -> dict[str, Any]:
    started = time.monotonic()
    task = spec.make(queries)
    stamp = indexing.fingerprint({**task.corpus, **{f"q:{k}": v for k, v in
                                                    task.queries.items()}}, spec.analyzer)
    store = Store(ROOT, spec.key, stamp)
    split = split_queries(task.queries)
    bench = CorpusBench(cluster, spec.key, task, spec.analyzer, split, store, validator, log)
    log(f"{spec.key}: {len(task.corpus):,} documents, {len(split.tuning)} tuning + "
        f"{len(split.heldout)} held-out queries, {spec.analyzer}"
        f"{', full DFR/IB cross products' if spec.full else ''}")
    try:
        cands, shipped = search_all(bench, spec.full)
        summary = summarize(bench, cands, resamples)
    finally:
        bench.restore_default()
    if not keep_index and bench.terms is not None:
        cluster.request("DELETE", index_path(bench.index), None, {"ignore_unavailable": "true"})
    measured = [r for r in store.runs.values() if not r.get("error")]
    result = {
        "group": spec.group, "analyzer": spec.analyzer, "documents": len(task.corpus),
        "queries": {"tuning": len(split.tuning), "heldout": len(split.heldout)},
        "full_cross_product": spec.full, "shipped_prediction": shipped,
        "cost": {"settings_measured": len({r["setting"] for r in measured}),
                 "searches": sum(len(r["ndcg"]) for r in measured),
                 "search_seconds": round(sum(r.get("seconds", 0.0) for r in measured), 1),
                 "this_run_seconds": round(time.monotonic() - started, 1)},
        **summary,
    }
    f = summary["families"]
    log(f"{spec.key}: done; held out: BM25 {f['bm25_default']['heldout']:.4f}, best peer "
        f"{summary['best_peer']} {f[summary['best_peer']]['heldout']:.4f}, q-log "
        f"{f['qlog']['heldout']:.4f} ({f['qlog']['setting']}), joint "
        f"{f['joint']['heldout']:.4f}")
    return result


def plan() -> dict[str, Any]:
    """The grids, as data beside the results."""
    return {
        "split": {"seed": SEED, "tuning": "a seeded half of the queries (rounded down)",
                  "heldout": "the other half"},
        "bm25": {"b": fam.B_GRID, "k1": fam.K1_GRID, "then": "k1 x 0.75, x 1.33; b -/+ 0.1"},
        "qlog": {"q": fam.Q_GRID, "then": "edge extension, midpoints around the best"},
        "joint": "from the best q: b grid, k1 grid, the neighbouring q values, then the "
                 "k1/b step; candidates include every q-log and every BM25 setting",
        "lm_dirichlet": {"mu": fam.MU_GRID}, "lm_jelinek_mercer": {"lambda": fam.LAMBDA_GRID},
        "dfr": {"basic_model": fam.BASIC_MODELS, "after_effect": fam.AFTER_EFFECTS,
                "normalization": fam.NORMALIZATIONS, "parameter": fam.NORM_GRIDS},
        "ib": {"distribution": fam.IB_DISTRIBUTIONS, "lambda": fam.IB_LAMBDAS},
        "dfi": {"independence_measure": fam.DFI_MEASURES},
        "idf_gamma": {"gamma": fam.GAMMA_GRID},
    }


def write(data: dict[str, Any]) -> None:
    from qidf_research.bench_report import render

    OUT.mkdir(parents=True, exist_ok=True)
    PEERS_JSON.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    results = OUT / "results.json"
    if results.is_file():
        (OUT / "results.md").write_text(render(json.loads(results.read_text())))


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None, help="cluster (default: the local engine)")
    ap.add_argument("--corpora", default="all", help="keys or groups, comma-separated")
    ap.add_argument("--queries", type=int, default=1000, help="queries per task (seeded)")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--keep-indices", action="store_true")
    args = ap.parse_args(argv)
    specs = select(args.corpora)
    signal.signal(signal.SIGTERM, _interrupt)  # finally blocks reopen and restore the index
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    data: dict[str, Any] = {"corpora": {}}
    if PEERS_JSON.is_file():
        data = json.loads(PEERS_JSON.read_text())
    data.update({"engine": str(cluster.engine), "queries_per_task": args.queries,
                 "resamples": args.resamples, "plan": plan(),
                 "regenerate": "nice -n 10 .venv/bin/python -m qidf_research.bench_peers"})
    validator = Validator(cluster)
    for spec in specs:
        try:
            data["corpora"][spec.key] = run_corpus(cluster, spec, args.queries,
                                                   args.resamples, validator,
                                                   args.keep_indices)
        except (FileNotFoundError, RuntimeError) as exc:
            log(f"{spec.key}: skipped, corpus not available ({exc})")
            continue
        write(data)
    write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
