"""Charts the site draws with matplotlib when it is built: from the one formula
(``qidf_ctl.formula``) and from the benchmark results committed in ``benchmarks/``.

Each function returns SVG text; text stays text (``svg.fonttype`` none), and the output carries
no date and fixed ids, so the same inputs give the same bytes (``pictures.py`` caches by them).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO_SWEEP = "benchmarks/demo/sweep.json"
SHARDING = "benchmarks/sharding/results.json"
DEMO_DOCUMENTS = 13_994  # the demo's corpus: qidf_ctl/demo/data/go-stdlib.jsonl.gz
IDF_QS = (1.0, 0.7, 0.3, 0.05)
COLORS = {1.0: "#555555", 0.7: "#1e88e5", 0.3: "#8e24aa", 0.05: "#e53935"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "qidf", "font.size": 10,
                         "figure.facecolor": "white", "axes.facecolor": "white",
                         "axes.spines.top": False, "axes.spines.right": False,
                         "axes.grid": True, "grid.color": "#e6e6e6"})
    return plt


def _svg(fig: Any) -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    _pyplot().close(fig)
    return out.getvalue()


def _read(path: str) -> Any:
    return json.loads((ROOT / path).read_text())


def idf_curves() -> str:
    """BM25's IDF against q-log's over df, from ``qidf_ctl.formula.idf``: raw, and relative to
    a df = 1 term (how much more a one-off identifier counts than a term in df files)."""
    from qidf_ctl.formula import idf

    plt = _pyplot()
    dfs = sorted({round(10 ** (i / 20)) for i in range(0, 83)})  # 1 .. ~13,000, log-spaced
    fig, (raw, rel) = plt.subplots(1, 2, figsize=(9, 3.6))
    for q in IDF_QS:
        values = [idf(q, DEMO_DOCUMENTS, df) for df in dfs]
        name = "BM25 (q = 1)" if q == 1 else f"q-log, q = {q:g}"
        raw.plot(dfs, values, color=COLORS[q], label=name, lw=2 if q == 1 else 1.6)
        rel.plot(dfs, [v / values[0] for v in values], color=COLORS[q], label=name,
                 lw=2 if q == 1 else 1.6)
    for ax in (raw, rel):
        ax.set_xscale("log")
        ax.set_xlabel(f"df: documents holding the term (of N = {DEMO_DOCUMENTS:,})")
        ax.axvline(50, color="#999999", lw=0.8, ls=":")
    raw.set_yscale("log")
    raw.set_ylabel("IDF")
    raw.set_title("The IDF a term gets", loc="left", fontsize=10)
    rel.set_ylabel("IDF / IDF of a df = 1 term")
    rel.set_title("Relative to a one-off token (df = 1)", loc="left", fontsize=10)
    rel.legend(frameon=False, fontsize=9)
    return _svg(fig)


def demo_q_curve() -> str:
    """NDCG@10 of the demo at every q of the sweep (``qidf sweep --json``), with BM25, the q
    ``--q auto`` picks, the recommendation and the oracle marked."""
    sweep = _read(DEMO_SWEEP)
    points = sorted((float(p["q"]), float(p["ndcg10"])) for p in sweep["points"])
    recommendation = sweep["recommendation"]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    qs, ndcg = zip(*points, strict=True)
    ax.plot(qs, ndcg, color="#3949ab", marker="o", ms=3.5, lw=1.6)
    marks = [(1.0, "BM25 (q = 1)", "#555555", (8, 6)),
             (float(recommendation["reference_q"]), "qidf predict / --q auto", "#1e88e5",
              (10, -4)),
             (float(recommendation["q"]), "recommended", "#2e7d32", (8, -16)),
             (float(sweep["oracle_q"]), "oracle", "#e53935", (8, -30))]
    at = dict(points)
    for q, name, color, offset in marks:
        if q in at:
            ax.plot([q], [at[q]], "o", color=color, ms=9, zorder=3, mfc="none", mew=2)
            ax.annotate(f"{name}: q {q:g}, {at[q]:.4f}", (q, at[q]), fontsize=9, color=color,
                        xytext=offset, textcoords="offset points")
    ax.set_xlabel("q (1 is BM25; below 1, rare tokens weigh more)")
    ax.set_ylabel("NDCG@10")
    ax.set_title(f"The demo: {DEMO_DOCUMENTS:,} Go docstrings, {sweep['queries']} code "
                 "queries (qidf sweep)", loc="left", fontsize=10)
    return _svg(fig)


def shard_statistics() -> str:
    """NDCG@10 over q on go-large at 1, 3 and 12 shards: each shard's own statistics
    (query_then_fetch) against index-wide ones (dfs_query_then_fetch)."""
    results = _read(SHARDING)
    corpus = next(c for c in results["corpora"] if c["language"] == "go-large")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    styles = {1: "#555555", 3: "#fb8c00", 12: "#e53935"}
    for setting in corpus["settings"]:
        shards, kind = setting["shards"], setting["search_type"]
        if kind == "pipeline" or (shards == 1 and kind != "query_then_fetch"):
            continue
        curve = sorted((float(q), v) for q, v in setting["curve"].items() if q != "bm25")
        qs, ndcg = zip(*curve, strict=True)
        label = ("1 shard" if shards == 1 else
                 f"{shards} shards, " + ("per-shard statistics" if kind == "query_then_fetch"
                                         else "index-wide (dfs or --stats index)"))
        ax.plot(qs, ndcg, color=styles[shards], lw=1.8 if shards == 1 else 1.4,
                ls="-" if kind == "query_then_fetch" else "--", label=label,
                marker="o", ms=3)
    ax.set_xlabel("q (1 is BM25)")
    ax.set_ylabel("NDCG@10")
    ax.set_title(f"go-large: {corpus['documents']:,} documents, {corpus['queries']:,} code "
                 "queries", loc="left", fontsize=10)
    ax.legend(frameon=False, fontsize=9)
    return _svg(fig)
