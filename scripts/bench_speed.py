#!/usr/bin/env python3
"""Query speed of built-in BM25, the qidf plugin and the Painless similarity on one index.

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

    .venv/bin/python scripts/bench_speed.py --out benchmarks/speed/results.json
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import http.client
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from qidf_ctl import indexing, install, local_engine, plugin  # noqa: E402
from qidf_ctl.cluster import Cluster, ConnectionSettings  # noqa: E402
from qidf_ctl.corpora import (  # noqa: E402
    Pair,
    build_java,
    build_python,
    load_pairs,
    shipped_corpus,
    write_pairs,
)
from qidf_ctl.queries import analyze, term_query  # noqa: E402
from qidf_ctl.similarity import Mode, QlogParams  # noqa: E402

FIELD = indexing.FIELD
JDK_SRC = Path("/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip")
PY_LIB = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
DEFAULT_ZIP = (REPO / "plugin-java" / "target" / "opensearch-2.19.6"
               / "qidf-qlog-similarity-0.1.0-opensearch-2.19.6.zip")
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qidf" / "bench-speed"
FALLBACK_Q = 0.3
BM25, PLUGIN, PAINLESS, PLUGIN_Q1 = "bm25", "plugin", "painless", "plugin_q1"
# plugin_q1 is the control: the plugin at q = 1 scores bit for bit like BM25, so it prunes
# exactly like BM25 and any difference is the plugin's code path. At q != 1 the scores (and
# with them how many documents dynamic pruning can skip) differ from BM25's.
SYSTEMS = (BM25, PLUGIN, PAINLESS, PLUGIN_Q1)
LABELS = {BM25: "built-in BM25", PLUGIN: "plugin qlog_bm25, predicted q",
          PAINLESS: "Painless scripted, predicted q", PLUGIN_Q1: "plugin qlog_bm25, q = 1"}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- Corpus -----------------------------------------------------------------------------


def cached_pairs(name: str, build: Callable[[], list[Pair]]) -> list[Pair]:
    """Java and Python pairs take minutes to parse: build once, keep under the user cache."""
    path = CACHE / f"{name}.jsonl.gz"
    if path.exists():
        return load_pairs(path)
    log(f"building {name} pairs (once; cached in {path})")
    pairs = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"partial-{path.name}")
    write_pairs(pairs, tmp)
    tmp.rename(path)
    return pairs


def load_all_pairs(jdk_src: Path, py_lib: Path) -> list[Pair]:
    """Go (shipped), Java (the JDK's own sources) and Python (the standard library)."""
    go = load_pairs(shipped_corpus("go"))
    java = cached_pairs(f"java-{hashlib.sha1(str(jdk_src).encode()).hexdigest()[:8]}",
                        lambda: build_java(jdk_src))
    python = cached_pairs(f"python-{hashlib.sha1(str(py_lib).encode()).hexdigest()[:8]}",
                          lambda: build_python(py_lib))
    return go + java + python


@dataclass
class Split:
    """Pairs held out as queries are not indexed: a query is never its own document."""

    indexed: list[Pair]
    queries: list[Pair]
    warmup: list[Pair]


def split_pairs(pairs: list[Pair], n_queries: int, n_warmup: int, seed: int) -> Split:
    ordered = sorted(pairs, key=lambda p: p.id)
    rng = random.Random(seed)
    held = rng.sample(range(len(ordered)), n_queries + n_warmup)
    held_set = set(held)
    return Split(
        indexed=[p for i, p in enumerate(ordered) if i not in held_set],
        queries=[ordered[i] for i in held[:n_queries]],
        warmup=[ordered[i] for i in held[n_queries:]],
    )


def documents(pairs: Sequence[Pair]) -> dict[str, str]:
    """Each pair gives two real documents: its code and its doc comment."""
    docs: dict[str, str] = {}
    for p in pairs:
        docs[f"{p.id}#code"] = p.code
        docs[f"{p.id}#doc"] = p.doc
    return docs


# --- Engine and indices -----------------------------------------------------------------


def corpus_fingerprint(docs: dict[str, str]) -> str:
    h = hashlib.sha256()
    for doc_id in sorted(docs):
        h.update(doc_id.encode())
        h.update(b"\0")
        h.update(docs[doc_id].encode())
        h.update(b"\1")
    return h.hexdigest()[:16]


def segments(cluster: Cluster, index: str) -> list[dict[str, Any]]:
    return list(cluster.request("GET", f"/_cat/segments/{index}", params={"format": "json"}))


def build_base_index(cluster: Cluster, name: str, docs: dict[str, str], reuse: bool) -> bool:
    """Index once, force-merge to one segment (every run then scores the same segment).
    Returns False when an identical index from an earlier run was reused."""
    fp = corpus_fingerprint(docs)
    if reuse and indexing.doc_count(cluster, name) == len(docs):
        meta = cluster.request("GET", f"/{name}/_mapping")[name]["mappings"].get("_meta") or {}
        if meta.get("bench_speed") == fp and len(segments(cluster, name)) == 1:
            return False
    for stale in [name] + [f"{name}-{s}" for s in SYSTEMS if s != BM25]:
        cluster.request("DELETE", f"/{stale}", None, {"ignore_unavailable": "true"})
    indexing.create_index(cluster, name, analyzer="standard", shards=1, replicas=0)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if done % 20_000 < n:
            log(f"  indexed {done}/{len(docs)}")

    count = indexing.bulk_index(cluster, name, docs, advance=advance)
    if count != len(docs):
        raise RuntimeError(f"{name} holds {count} documents, expected {len(docs)}")
    log("force-merging to one segment")
    cluster.request("POST", f"/{name}/_forcemerge?max_num_segments=1&flush=true")
    cluster.request("PUT", f"/{name}/_mapping", {"_meta": {"bench_speed": fp}})
    return True


def clone(cluster: Cluster, source: str, target: str) -> None:
    """_clone hard-links the segment files: the clones score exactly the same segment."""
    cluster.request("DELETE", f"/{target}", None, {"ignore_unavailable": "true"})
    cluster.request("PUT", f"/{source}/_settings", {"index.blocks.write": True})
    cluster.request("POST", f"/{source}/_clone/{target}",
                    {"settings": {"index.blocks.write": None, "index.number_of_replicas": 0}})
    cluster.request("GET", f"/_cluster/health/{target}?wait_for_status=green&timeout=120s")


def segment_inodes(cfg: local_engine.EngineConfig, uuid: str) -> list[int]:
    """Inodes of the shard's segment files: equal inodes are one file on disk, the proof that
    the clones read the very bytes the BM25 index reads."""
    shard = cfg.node_dir / "data" / "nodes" / "0" / "indices" / uuid / "0" / "index"
    return sorted(f.stat().st_ino for f in shard.glob("_*") if f.is_file())


def index_facts(cluster: Cluster, cfg: local_engine.EngineConfig, index: str) -> dict[str, Any]:
    segs = segments(cluster, index)
    sim = cluster.request("GET", f"/{index}/_settings/index.similarity*").get(index, {})
    uuid = cluster.request("GET", f"/{index}/_settings/index.uuid")[index]["settings"]["index"][
        "uuid"]
    return {
        "index": index,
        "segments": len(segs),
        "segment_file_inodes": segment_inodes(cfg, uuid),
        "docs": int(cluster.request("GET", f"/{index}/_count")["count"]),
        "size": segs[0].get("size") if segs else None,
        "similarity": sim.get("settings", {}).get("index", {}).get("similarity",
                                                                      "built-in default"),
    }


def predicted_q(cluster: Cluster, index: str, sample: int,
                seed: int) -> tuple[float, dict[str, Any]]:
    """q from qidf's own predictor on this very index; a fixed q if the predictor is absent.

    Speed hardly depends on q (the IDF is computed once per query term, not per document),
    so the fallback changes what q is reported, not the conclusion."""
    try:
        from qidf_ctl.predict import predict_for_index
    except ImportError as exc:
        return FALLBACK_Q, {"source": f"fallback q={FALLBACK_Q}: qidf_ctl.predict missing "
                                      f"({exc})"}
    pred = predict_for_index(cluster, index, field=FIELD, sample=sample, seed=seed)
    info = {k: v for k, v in pred.as_dict().items() if k != "statistics"}
    info["source"] = (f"qidf_ctl.predict.predict_for_index (predictor {pred.predictor!r}, "
                      f"sample of {sample} documents, seed {seed})")
    return pred.q, info


# --- Queries ----------------------------------------------------------------------------


@dataclass
class QuerySet:
    """Bodies are serialised once: the timed loop only sends bytes."""

    name: str
    description: str
    bodies: list[bytes]
    clauses: list[int]
    ids: list[str] = field(default_factory=list)


def search_body(query: dict[str, Any], size: int, exhaustive: bool = False) -> dict[str, Any]:
    """``_source`` is left out: fetching it costs the same on every index and only dilutes
    the differences this benchmark is after."""
    body: dict[str, Any] = {"query": query, "size": size, "_source": False}
    if exhaustive:
        body["track_total_hits"] = True
    return body


def nl_queries(cluster: Cluster, index: str, pairs: Sequence[Pair], size: int,
               exhaustive: bool = False) -> QuerySet:
    """The query text goes to the engine as is; ``_analyze`` only counts its distinct terms.

    ``exhaustive`` asks for the exact hit count: every matching document is then scored, no
    dynamic pruning, which exposes the per-document cost of each similarity."""
    bodies = [json.dumps(search_body({"match": {FIELD: p.doc}}, size, exhaustive)).encode()
              for p in pairs]
    clauses = [max(1, len(analyze(cluster, index, FIELD, p.doc))) for p in pairs]
    if exhaustive:
        return QuerySet("doc_comment_exhaustive", "the doc-comment queries with "
                        "track_total_hits=true: every matching document is scored",
                        bodies, clauses, [p.id for p in pairs])
    return QuerySet("doc_comment", "a held-out pair's doc comment as a match query "
                    "(what a coding agent types); default track_total_hits (10,000)",
                    bodies, clauses, [p.id for p in pairs])


def code_queries(cluster: Cluster, index: str, pairs: Sequence[Pair], size: int) -> QuerySet:
    """Whole functions are too long for a match query (too_many_clauses): merged term
    clauses score the same with one clause per distinct token."""
    bodies, clauses, ids = [], [], []
    for p in pairs:
        counts = analyze(cluster, index, FIELD, p.code)
        if not counts:
            continue
        q = term_query(FIELD, counts)
        bodies.append(json.dumps(search_body(q, size)).encode())
        clauses.append(len(q["bool"]["should"]))
        ids.append(p.id)
    return QuerySet("code", "a held-out function's code: _analyze, then one term clause per "
                    "distinct token, boost = repeats (at most 1024)", bodies, clauses, ids)


# --- Timed client -----------------------------------------------------------------------


class Client:
    """One persistent HTTP/1.1 connection: no client library between the timer and the
    socket, so that client overhead is small and the same for every index."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def search(self, index: str, body: bytes) -> tuple[float, dict[str, Any]]:
        path = f"/{index}/_search?request_cache=false"
        headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
        t0 = time.perf_counter()
        self.conn.request("POST", path, body=body, headers=headers)
        resp = self.conn.getresponse()
        data = resp.read()
        elapsed = time.perf_counter() - t0
        parsed = json.loads(data)
        if resp.status != 200 or parsed.get("timed_out") or parsed["_shards"]["failed"]:
            raise RuntimeError(f"search on {index} failed ({resp.status}): {data[:300]!r}")
        return elapsed, parsed

    def close(self) -> None:
        self.conn.close()


@dataclass
class Block:
    """One index x one query set x one round: every query once, in chunks interleaved with
    the other indices."""

    system: str
    query_set: str
    round: int
    fork: int  # which JVM launch of the node
    latency_ms: list[float] = field(default_factory=list)
    took_ms: list[int] = field(default_factory=list)
    wall_s: float = 0.0

    def summary(self) -> dict[str, float]:
        lat = np.asarray(self.latency_ms)
        took = np.asarray(self.took_ms, dtype=float)
        return {
            "p50_ms": float(np.percentile(lat, 50)),
            "p99_ms": float(np.percentile(lat, 99)),
            "mean_ms": float(lat.mean()),
            "qps": len(lat) / self.wall_s,
            "took_mean_ms": float(took.mean()),
            "took_p50_ms": float(np.percentile(took, 50)),
            "took_p99_ms": float(np.percentile(took, 99)),
        }


def run_block(client: Client, index: str, bodies: Sequence[bytes]) -> tuple[list[float],
                                                                           list[int], float]:
    """Python's collector is paused so that a GC pause never lands on one index only."""
    lat: list[float] = []
    took: list[int] = []
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for body in bodies:
            elapsed, parsed = client.search(index, body)
            lat.append(elapsed * 1000.0)
            took.append(int(parsed["took"]))
        wall = time.perf_counter() - t0
    finally:
        gc.enable()
    return lat, took, wall


def timed_round(client: Client, names: dict[str, str], qs: QuerySet, round_no: int,
                fork: int, chunk: int) -> list[Block]:
    """Every query once against every index. The indices take turns every ``chunk`` queries
    and the turn order rotates, so a burst of load from other processes on this machine, or
    a warmer cache after a neighbour's turn, falls on all of them alike."""
    blocks = {s: Block(s, qs.name, round_no, fork) for s in SYSTEMS}
    k = len(SYSTEMS)
    for c, start in enumerate(range(0, len(qs.bodies), chunk)):
        shift = (round_no + c) % k
        for system in SYSTEMS[shift:] + SYSTEMS[:shift]:
            lat, took, wall = run_block(client, names[system], qs.bodies[start:start + chunk])
            b = blocks[system]
            b.latency_ms += lat
            b.took_ms += took
            b.wall_s += wall
    return list(blocks.values())


# --- Profile ----------------------------------------------------------------------------


def _walk(node: dict[str, Any], depth: int, acc: dict[str, float]) -> None:
    bd = node.get("breakdown", {})
    if depth == 0:
        acc["top_time_ns"] += node.get("time_in_nanos", 0)
        acc["top_score_count"] += bd.get("score_count", 0)
    if not node.get("children"):
        acc["leaf_score_count"] += bd.get("score_count", 0)
        acc["leaf_score_ns"] += bd.get("score", 0)
        acc["leaf_max_score_count"] += bd.get("compute_max_score_count", 0)
        acc["leaf_max_score_ns"] += bd.get("compute_max_score", 0)
        acc["leaf_advance_count"] += bd.get("advance_count", 0)
        acc["leaf_next_doc_count"] += bd.get("next_doc_count", 0)
        acc["leaf_shallow_advance_count"] += bd.get("shallow_advance_count", 0)
    for child in node.get("children", []):
        _walk(child, depth + 1, acc)


def profile(client: Client, index: str, bodies: Sequence[bytes]) -> dict[str, float]:
    """Counts from the profile API, averaged per query: documents and term-document pairs
    scored, calls to the max-score (impacts) machinery.

    Profiled searches here score every match whatever track_total_hits says (the max-score
    counts stay 0), so the counts are those of an exhaustive evaluation: the denominator for
    a cost per score, not a picture of the pruned path. Timers around every call inflate the
    times; they only compare the similarities with each other."""
    keys = ("top_time_ns", "top_score_count", "leaf_score_count", "leaf_score_ns",
            "leaf_max_score_count", "leaf_max_score_ns", "leaf_advance_count",
            "leaf_next_doc_count", "leaf_shallow_advance_count")
    acc = dict.fromkeys(keys, 0.0)
    for body in bodies:
        doc = json.loads(body)
        doc["profile"] = True
        _, parsed = client.search(index, json.dumps(doc).encode())
        for q in parsed["profile"]["shards"][0]["searches"][0]["query"]:
            _walk(q, 0, acc)
    n = len(bodies)
    out = {k: v / n for k, v in acc.items()}
    out["queries"] = float(n)
    out["ns_per_leaf_score"] = acc["leaf_score_ns"] / max(acc["leaf_score_count"], 1.0)
    out["ns_per_max_score"] = acc["leaf_max_score_ns"] / max(acc["leaf_max_score_count"], 1.0)
    return out


# --- Checks -----------------------------------------------------------------------------


def check_scores(client: Client, names: dict[str, str], sets: Sequence[QuerySet],
                 q: float, n: int = 20) -> dict[str, Any]:
    """The clones must really score with the q-log IDF, and plugin and Painless must agree:
    otherwise the comparison would be of the wrong similarities."""
    differ, top_equal, max_rel, q1_equal = 0, 0, 0.0, 0
    checked = 0
    for qs in sets:
        for body in qs.bodies[:n]:
            hits = {}
            for system, index in names.items():
                _, parsed = client.search(index, body)
                hits[system] = [(h["_id"], float(h["_score"])) for h in parsed["hits"]["hits"]]
            checked += 1
            if [s for _, s in hits[BM25]] != [s for _, s in hits[PLUGIN]]:
                differ += 1
            if hits[BM25] == hits[PLUGIN_Q1]:
                q1_equal += 1
            a, b = hits[PLUGIN], hits[PAINLESS]
            if [i for i, _ in a] == [i for i, _ in b]:
                top_equal += 1
            for (_, sa), (_, sb) in zip(a, b, strict=False):
                max_rel = max(max_rel, abs(sa - sb) / max(abs(sa), 1e-9))
    result = {"queries": checked, "plugin_scores_differ_from_bm25": differ,
              "plugin_painless_same_top10_ids": top_equal,
              "plugin_painless_max_rel_score_diff": max_rel,
              "plugin_q1_hits_and_scores_equal_bm25": q1_equal}
    if q != 1.0 and differ < checked // 2:
        raise RuntimeError(f"plugin scores equal BM25's on {checked - differ}/{checked} "
                           f"queries at q={q}: the similarity is not in effect ({result})")
    if max_rel > 1e-4:
        raise RuntimeError(f"plugin and Painless disagree (max relative diff {max_rel:.2g})")
    if q1_equal != checked:
        raise RuntimeError(f"plugin at q=1 differs from BM25 on {checked - q1_equal} queries")
    return result


# --- Report -----------------------------------------------------------------------------


def summarise(blocks: list[Block], query_sets: Sequence[QuerySet]) -> dict[str, Any]:
    """Medians over rounds, and per-round ratios against BM25 (a ratio is taken within one
    round, where the indices took turns under the same background load), with the median
    of each JVM launch's rounds beside them."""
    out: dict[str, Any] = {}
    metrics = ("p50_ms", "p99_ms", "mean_ms", "qps", "took_mean_ms", "took_p50_ms",
               "took_p99_ms")
    for qs in query_sets:
        mine = [b for b in blocks if b.query_set == qs.name]
        rounds = sorted({b.round for b in mine})
        per = {(b.system, b.round): b.summary() for b in mine}
        forks = [next(b.fork for b in mine if b.round == r) for r in rounds]
        section: dict[str, Any] = {"queries": len(qs.bodies), "rounds": len(rounds),
                                   "clauses_median": statistics.median(qs.clauses),
                                   "systems": {}}
        for system in SYSTEMS:
            med = {m: statistics.median(per[(system, r)][m] for r in rounds) for m in metrics}
            ratios: dict[str, Any] = {}
            for m in ("p50_ms", "p99_ms", "mean_ms", "qps", "took_mean_ms"):
                ratios[m] = _ratio_stats([per[(system, r)][m] / per[(BM25, r)][m]
                                          for r in rounds], forks)
            # Paired per query: each query's median latency over rounds, then the ratio.
            lat = {s: np.median(np.asarray([next(b.latency_ms for b in mine
                                                  if b.system == s and b.round == r)
                                             for r in rounds]), axis=0)
                   for s in (system, BM25)}
            paired = lat[system] / lat[BM25]
            section["systems"][system] = {
                "median_over_rounds": med,
                "per_round": [per[(system, r)] for r in rounds],
                "ratio_vs_bm25": ratios,
                "paired_per_query_ratio": {
                    "median": float(np.median(paired)),
                    "p10": float(np.percentile(paired, 10)),
                    "p90": float(np.percentile(paired, 90)),
                },
            }
        section["decomposition"] = {
            name: {m: _ratio_stats([per[(a, r)][m] / per[(b, r)][m] for r in rounds], forks)
                   for m in ("p50_ms", "p99_ms", "mean_ms")}
            for name, (a, b) in DECOMPOSITION.items()
        }
        out[qs.name] = section
    return out


# Each step changes one thing: the code path, then q (scores, hence pruning), then the
# implementation (Java to Painless) at equal scores.
DECOMPOSITION = {
    "code_path: plugin_q1 / bm25": (PLUGIN_Q1, BM25),
    "q: plugin / plugin_q1": (PLUGIN, PLUGIN_Q1),
    "script: painless / plugin": (PAINLESS, PLUGIN),
}


def _ratio_stats(rs: list[float], forks: list[int]) -> dict[str, Any]:
    per_fork = [statistics.median(r for r, f in zip(rs, forks, strict=True) if f == fork)
                for fork in sorted(set(forks))]
    return {"median": statistics.median(rs), "min": min(rs), "max": max(rs), "per_round": rs,
            "median_per_fork": per_fork}


def by_clauses(blocks: list[Block], qs: QuerySet, edges: Sequence[int]) -> list[dict[str, Any]]:
    """Painless's cost grows with the number of term scorers; show it by query length."""
    mine = [b for b in blocks if b.query_set == qs.name]
    rounds = sorted({b.round for b in mine})
    med = {s: np.median(np.asarray([next(b.latency_ms for b in mine
                                         if b.system == s and b.round == r) for r in rounds]),
                        axis=0) for s in SYSTEMS}
    clauses = np.asarray(qs.clauses)
    rows = []
    for lo, hi in itertools.pairwise(edges):
        sel = (clauses >= lo) & (clauses < hi)
        if not sel.any():
            continue
        row: dict[str, Any] = {"clauses": f"{lo}-{hi - 1}", "queries": int(sel.sum())}
        for s in SYSTEMS:
            row[f"{s}_p50_ms"] = float(np.median(med[s][sel]))
        for s in SYSTEMS[1:]:
            row[f"{s}_ratio_p50"] = row[f"{s}_p50_ms"] / row[f"{BM25}_p50_ms"]
        rows.append(row)
    return rows


def explain(blocks: list[Block], profiles: dict[str, Any], n: int) -> dict[str, Any]:
    """Numbers behind the README's explanation, all on the same ``n`` (profiled) queries.

    pruning_saving: 1 - took(default) / took(track_total_hits=true), per similarity: the share
    of the exhaustive work that dynamic pruning skips; a similarity that lost pruning would
    show about 0. extra_ns_per_term_score: Painless minus plugin server time with pruning
    off, divided by the term-document scores such a query computes (the profile's leaf
    score_count, which equals every matching document's terms when nothing is skipped)."""
    out: dict[str, Any] = {"queries": n}
    names = ("doc_comment", "doc_comment_exhaustive")
    if all(any(b.query_set == name for b in blocks) for name in names):
        took = {name: {s: statistics.median(float(np.mean(b.took_ms[:n])) for b in blocks
                                            if b.query_set == name and b.system == s)
                       for s in SYSTEMS} for name in names}
        out["took_mean_ms"] = took
        out["pruning_saving"] = {s: 1 - took["doc_comment"][s] / took[
            "doc_comment_exhaustive"][s] for s in SYSTEMS}
        prof = profiles.get("doc_comment_exhaustive", {})
        if prof:
            scores = prof[PLUGIN]["leaf_score_count"]
            extra_ms = took["doc_comment_exhaustive"][PAINLESS] - took[
                "doc_comment_exhaustive"][PLUGIN]
            out["term_scores_per_query_exhaustive"] = scores
            out["docs_scored_per_query_exhaustive"] = prof[PLUGIN]["top_score_count"]
            out["extra_ns_per_term_score"] = extra_ms * 1e6 / max(scores, 1.0)
    return out


def markdown_table(summary: dict[str, Any]) -> str:
    lines = ["| query set | similarity | p50 ms | p99 ms | queries/s | server took ms (mean) "
             "| p50 ratio | p99 ratio | qps ratio | ratio range over rounds (p50; p99) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for qs_name, section in summary.items():
        for s in SYSTEMS:
            m = section["systems"][s]["median_over_rounds"]
            r = section["systems"][s]["ratio_vs_bm25"]
            rng = (f"{r['p50_ms']['min']:.3f}-{r['p50_ms']['max']:.3f}; "
                   f"{r['p99_ms']['min']:.3f}-{r['p99_ms']['max']:.3f}")
            lines.append(
                f"| {qs_name} ({section['queries']}) | {LABELS[s]} | {m['p50_ms']:.2f} | "
                f"{m['p99_ms']:.2f} | {m['qps']:.1f} | {m['took_mean_ms']:.2f} | "
                f"{r['p50_ms']['median']:.3f} | {r['p99_ms']['median']:.3f} | "
                f"{r['qps']['median']:.3f} | {rng} |")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = ""
    with contextlib.suppress(OSError):
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory": mem, "kernel": platform.release(),
            "python": platform.python_version()}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_head() -> str:
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    return ""


# --- Main -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=9240)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--home", type=Path,
                    default=local_engine.home_dir().with_name("qidf-bench-speed"),
                    help="QIDF home of the private node (distribution, data)")
    ap.add_argument("--zip", type=Path, default=DEFAULT_ZIP, help="plugin zip to install")
    ap.add_argument("--jdk-src", type=Path, default=JDK_SRC)
    ap.add_argument("--python-lib", type=Path, default=PY_LIB)
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
            local_engine.stop(cfg)
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
    names = {s: base if s == BM25 else f"{base}-{s}" for s in SYSTEMS}

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
    facts = {s: index_facts(cluster, cfg, n) for s, n in names.items()}
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
    blocks: list[Block] = []
    timed_seconds = 0.0
    total_rounds = args.forks * args.rounds
    try:
        checks = check_scores(client, names, sets, q)
        log(f"score check: {checks}")
        for fork in range(args.forks):
            if fork:
                # A fresh JVM: the JIT compiles (and inlines) differently per launch, a
                # variation that rounds within one JVM never see.
                client.close()
                log(f"restarting the node (JVM launch {fork + 1}/{args.forks})")
                local_engine.stop(cfg)
                local_engine.start(cfg)
                cluster.request("GET", "/_cluster/health?wait_for_status=green&timeout=120s")
                client = Client(args.port)
            log(f"warm-up: {args.warmup} + 100 queries per index and set")
            for qs in sets:
                for system in SYSTEMS:
                    run_block(client, names[system], warm[qs.name].bodies)
                    run_block(client, names[system], qs.bodies[: min(100, len(qs.bodies))])
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
                              for s in SYSTEMS} for qs in sets}
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
