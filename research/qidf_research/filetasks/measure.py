"""Measure one built task: the curves over the grid, the decisions (judged on the older half,
label-free), and on the newer half every decided q against BM25 and the newer half's oracle
q, each with the paired bootstrap (10,000 resamples, seed 0) on NDCG@10 and on the recall
of the changed files within 8K and 27K tokens."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES, paired_bootstrap
from qidf_ctl.evaluation.sweep import SweepPoint, oracle
from qidf_research.filetasks import curves as curves_lib
from qidf_research.filetasks import decisions, deep, index, path_field, split
from qidf_research.filetasks.build import Built

Log = Callable[[str], None]
FIELD = index.CONTENT_FIELD
RECENT = 500  # "the last 500 commits": the held-out judges' judged sample
ALPHA = 0.05


def _fingerprint(built: Built) -> str:
    h = hashlib.sha256(index.fingerprint(built.docs).encode())
    for q in sorted(built.queries):
        h.update(q.encode() + b"\0" + built.queries[q].encode() + b"\0")
        h.update(json.dumps(built.qrels[q], sort_keys=True).encode())
    return h.hexdigest()[:16]


def _terms(cluster: Cluster, built: Built, fp: str, log: Log) -> dict[str, Counter[str]]:
    path = built.folder.terms
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("fingerprint") == fp:
            return {k: Counter(v) for k, v in data["terms"].items()}
    log(f"{built.source.key}: analysing {len(built.queries):,} messages")
    terms = curves_lib.analysed(cluster, built.index, FIELD, built.queries)
    path.write_text(json.dumps({"fingerprint": fp, "terms": terms}) + "\n", encoding="utf-8")
    return terms


def _curves(cluster: Cluster, built: Built, terms: Mapping[str, Counter[str]], fp: str,
            log: Log) -> curves_lib.Curves:
    path = built.folder.curves
    if path.exists():
        cached = curves_lib.Curves.load(path)
        if cached.extra.get("fingerprint") == fp:
            return cached
    log(f"{built.source.key}: sweeping {len(curves_lib.GRID)} q on {len(terms):,} messages")
    result = curves_lib.sweep(cluster, built.index, FIELD, built.queries, built.qrels, terms,
                              log=lambda m: log(f"{built.source.key}: {m}"))
    result.extra = {"fingerprint": fp, "load": os.getloadavg()[0]}
    result.save(path)
    return result


def _decide(url: str, built: Built, curves: curves_lib.Curves, log: Log) -> dict[str, Any]:
    log(f"{built.source.key}: label-free decisions (apply --q auto --dry-run)")
    free = decisions.label_free(url, built.index, FIELD, None)
    free_sample = decisions.label_free(url, built.index, FIELD, built.folder.sample)
    older, recent = built.split.older, split.latest(built.split, RECENT)
    out: dict[str, Any] = {
        "label_free": free,
        "label_free_sample": free_sample,
        "judged": decisions.guarded(curves, older, free_sample["q"], "--q auto"),
        "judged_from_bm25": decisions.guarded(curves, older, 1.0, "BM25"),
        "judged_recent": decisions.guarded(curves, recent, free_sample["q"], "--q auto"),
        "judged_recent_from_bm25": decisions.guarded(curves, recent, 1.0, "BM25"),
    }
    if decisions.product_reads_judgments():
        log(f"{built.source.key}: apply --q auto --judgments --dry-run")
        out["judged_command"] = decisions.judged_command(url, built.index, FIELD,
                                                         built.folder.judgments)
    return out


def _oracle(curves: curves_lib.Curves, qids: tuple[str, ...]) -> SweepPoint:
    return oracle([SweepPoint(q, curves.mean(curves_lib.label(q), qids), 0.0)
                   for q in curves.grid])


def _deep(cluster: Cluster, built: Built, terms: Mapping[str, Counter[str]], qs: list[float],
          fp: str, log: Log) -> dict[str, deep.DeepPoint]:
    path = built.folder.deep
    cached: dict[str, Any] = {}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("fingerprint") == fp:
            cached = data["points"]
    newer = set(built.split.newer)
    newer_terms = {q: t for q, t in terms.items() if q in newer}
    newer_qrels = {q: built.qrels[q] for q in built.split.newer}
    points: dict[str, deep.DeepPoint] = {}
    for q in qs:
        key = curves_lib.label(q)
        if key in cached:
            points[key] = deep.DeepPoint(q, cached[key]["per_query"],
                                         cached[key]["depth_limited"])
            continue
        log(f"{built.source.key}: deep run on the newer half at q {key}")
        points[key] = deep.measure(cluster, built.index, FIELD, newer_terms, newer_qrels,
                                   built.tokens, q)
        cached[key] = {"per_query": points[key].per_query,
                       "depth_limited": points[key].depth_limited}
        path.write_text(json.dumps({"fingerprint": fp, "points": cached}) + "\n",
                        encoding="utf-8")
    return points


def _compare(point: deep.DeepPoint, bm25: deep.DeepPoint) -> dict[str, Any]:
    out: dict[str, Any] = {"q": point.q, "depth_limited": point.depth_limited}
    for measure in deep.MEASURES:
        b = paired_bootstrap(point.per_query[measure], bm25.per_query[measure],
                             measure=measure, resamples=DEFAULT_RESAMPLES, seed=0)
        out[measure] = {"mean": b.run_mean, "delta": b.delta,
                        "p": b.p_value if point.q != bm25.q else None,
                        "sign_flip_share": b.sign_flip_share if point.q != bm25.q else None}
    return out


def _sweep_cli_check(url: str, built: Built, judged: dict[str, Any], log: Log
                     ) -> dict[str, Any]:
    """``qidf sweep`` run as a command on the older half: does it recommend what ``judged``
    (the guard over the shared curves) says, for the same reason?"""
    log(f"{built.source.key}: qidf sweep --query-time on the older half (the CLI check)")
    folder = built.folder.judgments
    cli = decisions.sweep_command(url, built.index, FIELD, folder / "queries.jsonl",
                                  folder / "older.qrels.tsv")
    return {**cli, "agrees": cli["q"] == judged["q"] and cli["reason"] == judged["reason"]}


def measure(cluster: Cluster, url: str, built: Built, log: Log = print,
            check_cli: bool = False, paths: bool = False) -> dict[str, Any]:
    started = time.monotonic()
    fp = _fingerprint(built)
    terms = _terms(cluster, built, fp, log)
    curves = _curves(cluster, built, terms, fp, log)
    decided = _decide(url, built, curves, log)
    if curves_lib.extend(curves, cluster, built.index, built.queries, built.qrels, terms,
                         decisions.distinct_qs(decided)):
        curves.save(built.folder.curves)
    newer, older = built.split.newer, built.split.older
    best_new, best_old = _oracle(curves, newer), _oracle(curves, older)
    qs = sorted({1.0, best_new.q, *decisions.distinct_qs(decided)})
    points = _deep(cluster, built, terms, qs, fp, log)
    bm25 = points[curves_lib.label(1.0)]
    compared = {k: _compare(p, bm25) for k, p in points.items()}
    for key, point in points.items():  # the deep run's NDCG@10 is the sweep's, query by query
        sweep_mean = curves.mean(key, newer)
        if abs(point.mean("NDCG@10") - sweep_mean) > 1e-9:
            raise RuntimeError(f"{built.source.key} q {key}: the deep run's NDCG@10 "
                               f"{point.mean('NDCG@10')} differs from the sweep's {sweep_mean}")
    result = {
        "key": built.source.key, "repo": built.source.repo, "commit": built.source.commit,
        "language": built.source.language, "family": built.source.family,
        "documents": len(built.docs), "corpus": built.manifest,
        "judgments": built.judgments_summary,
        "commits": {"judged": len(built.queries), "older": len(older), "newer": len(newer),
                    "newer_from": built.split.newer_from, "recent": min(RECENT, len(older))},
        "relevant_per_commit": {h: sum(len(built.qrels[q]) for q in ids) / len(ids)
                                for h, ids in (("older", older), ("newer", newer))},
        "grid": curves.grid,
        "curve": {h: {k: curves.mean(k, ids) for k in curves.per_query}
                  for h, ids in (("older", older), ("newer", newer))},
        "oracle": {"newer": {"q": best_new.q, "ndcg10": best_new.ndcg10},
                   "older": {"q": best_old.q, "ndcg10": best_old.ndcg10}},
        "decisions": decided,
        "newer": compared,
        "sweep_cli_check": (_sweep_cli_check(url, built, decided["judged"], log)
                            if check_cli else None),
        "path_text": (path_field.measure(cluster, url, built, terms, fp, log)
                      if paths else None),
        "seconds": {"sweep": curves.seconds, "measure": time.monotonic() - started},
        "load": os.getloadavg()[0],
    }
    built.folder.result.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
