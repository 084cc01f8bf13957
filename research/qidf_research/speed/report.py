"""Summaries, the decomposition of the latency ratio, and the markdown table."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import platform
import statistics
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qidf_research.paths import REPO
from qidf_research.speed.client import Block
from qidf_research.speed.queries import QuerySet
from qidf_research.speed.settings import (
    BM25,
    LABELS,
    PAINLESS,
    PLUGIN,
    PLUGIN_Q1,
    QT_COLD,
    QT_SEARCH,
    QT_WARM,
    SYSTEMS,
)


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
    # Query time at the plugin's q returns the plugin's hits and scores: the boosted body
    # against the installed similarity, then the client's work, then the statistics.
    "query_shape: qt_search / plugin": (QT_SEARCH, PLUGIN),
    "text_to_query, cache warm: qt_warm / qt_search": (QT_WARM, QT_SEARCH),
    "statistics, no cache: qt_cold / qt_warm": (QT_COLD, QT_WARM),
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
