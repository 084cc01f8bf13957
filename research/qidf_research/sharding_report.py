"""The sharding benchmark's findings and README, from its results.json (no cluster)."""

from __future__ import annotations

from typing import Any

from qidf_research.paths import REPO
from qidf_research.sharding_pipeline import PIPELINE

OUT = REPO / "benchmarks" / "sharding"
SHARDS = (1, 3, 12)
COMMAND = ("QIDF_RESEARCH_CACHE=.qidf nice -n 10 .venv/bin/python -m "
           "qidf_research.bench_sharding --url http://127.0.0.1:9247")


def setting(corpus: dict[str, Any], shards: int, search_type: str) -> dict[str, Any] | None:
    return next((s for s in corpus["settings"]
                 if s["shards"] == shards and s["search_type"] == search_type), None)


def _setting(corpus: dict[str, Any], shards: int, search_type: str) -> dict[str, Any]:
    found = setting(corpus, shards, search_type)
    assert found is not None, (corpus["language"], shards, search_type)
    return found


def _retained(corpus: dict[str, Any], shards: int, search_type: str) -> float:
    """Share of the one-shard gain of q-log (predicted q) over BM25 left at ``shards``."""
    one, s = _setting(corpus, 1, "query_then_fetch"), _setting(corpus, shards, search_type)
    gain = one["predicted"] - one["bm25"]
    return (s["predicted"] - s["bm25"]) / gain if gain else float("nan")
def findings(result: dict[str, Any]) -> list[str]:
    """The numbers the README and the product's warning rest on, one line each."""
    lines = []
    for c in result["corpora"]:
        one = _setting(c, 1, "query_then_fetch")
        for n in SHARDS[1:]:
            qtf, dfs = _setting(c, n, "query_then_fetch"), _setting(c, n, "dfs_query_then_fetch")
            lat = qtf["latency"]["predicted"]
            boot = qtf["versus_one_shard"]["predicted"]
            lines.append(
                f"{c['language']} ({c['documents']:,} docs), {n} shards: q-log at the predicted "
                f"q = {c['prediction']['q']:g} scores {qtf['predicted']:.4f} with "
                f"query_then_fetch ({boot['delta']:+.4f} against 1 shard, paired bootstrap p = "
                f"{boot['p_value']:.4f}; {_retained(c, n, 'query_then_fetch'):.0%} of its gain "
                f"over BM25 left) and {dfs['predicted']:.4f} with dfs_query_then_fetch "
                f"({_retained(c, n, 'dfs_query_then_fetch'):.0%} left; 1 shard: "
                f"{one['predicted']:.4f}); BM25 {qtf['bm25']:.4f} / {dfs['bm25']:.4f} (1 shard "
                f"{one['bm25']:.4f}); dfs costs "
                f"{lat['dfs_query_then_fetch']['p50_ms'] - lat['query_then_fetch']['p50_ms']:+.2f}"
                f" ms at p50 ({lat['dfs_over_qtf']['p50_ms']:.2f}x)")
            pipe = setting(c, n, PIPELINE)
            if pipe is not None:
                agree, plat = pipe["agreement"], pipe["latency"]
                lines.append(
                    f"{c['language']}, {n} shards, plain `_search` through qidf's default "
                    f"pipeline (`qidf apply --stats index`): {pipe['predicted']:.4f}, top 10 "
                    f"identical to explicit dfs on {agree['top10_identical']:.1%} of "
                    f"{agree['queries']:,} queries (scores too: {agree['scores_identical']:.1%}), "
                    f"{pipe['kept_share']:.1%} of the one-shard gain over BM25 kept; p50 "
                    f"{plat[PIPELINE]['p50_ms']:.2f} ms against "
                    f"{plat['query_then_fetch']['p50_ms']:.2f} ms for plain query_then_fetch "
                    f"in the same run ({plat['pipeline_over_qtf']['p50_ms']:.2f}x)")
    return lines


def _pipeline_table(result: dict[str, Any]) -> list[str]:
    rows = [s for c in result["corpora"] for s in c["settings"] if s["search_type"] == PIPELINE]
    if not rows:
        return []
    lines = ["", "## Plain searches through qidf's default pipeline", "",
             "`qidf apply INDEX --q Q --stats index` installs a default search pipeline whose "
             "request processor (the plugin's `qidf_index_statistics`) sends scoring searches "
             "as `dfs_query_then_fetch`. Here the task's queries are sent by a client that "
             "knows nothing of qidf: plain `_msearch` items with no search type and no "
             "pipeline named. *Identical* compares each query's top 10 (ids in order) with "
             "explicit dfs at the same q on the same index; *kept*: (pipeline - BM25 on one "
             "shard) / (q-log - BM25, both on one shard). Latency: the three request kinds "
             "interleaved query by query in one run (query_then_fetch and dfs bypass the "
             "pipeline with `search_pipeline=_none`).", "",
             "| corpus | shards | qtf | dfs | pipeline | top 10 identical to dfs | gain kept | "
             "p50 ms qtf / dfs / pipeline | pipeline/qtf p50 |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for c in result["corpora"]:
        for n in SHARDS:
            pipe = setting(c, n, PIPELINE)
            if pipe is None:
                continue
            qtf, dfs = _setting(c, n, "query_then_fetch"), _setting(c, n, "dfs_query_then_fetch")
            lat = pipe["latency"]
            lines.append(
                f"| {c['language']} | {n} | {qtf['predicted']:.4f} | {dfs['predicted']:.4f} | "
                f"{pipe['predicted']:.4f} | {pipe['agreement']['top10_identical']:.1%} | "
                f"{pipe['kept_share']:.1%} | {lat['query_then_fetch']['p50_ms']:.2f} / "
                f"{lat['dfs_query_then_fetch']['p50_ms']:.2f} / {lat[PIPELINE]['p50_ms']:.2f} "
                f"| {lat['pipeline_over_qtf']['p50_ms']:.2f} |")
    return lines


def write_readme(result: dict[str, Any]) -> None:
    lines = [
        "# Sharding and the q-log IDF",
        "",
        "Generated by `python -m qidf_research.bench_sharding` (its docstring says what is "
        "measured and how); regenerate with:",
        "",
        "```",
        COMMAND,
        ".venv/bin/python -m qidf_research.bench_sharding --readme-only   # tables from "
        "results.json",
        "```",
        "",
        "The corpora come from the research's corpus builder (go-large: `python -c \"from "
        "qidf_research.sources.pinned import corpus_path; corpus_path('go-large', print)\"`, "
        "benchmarks/retrieval/README.md); `--corpora go-large` reruns one corpus and keeps "
        "the others' results.",
        "",
        f"Engine {result['engine']} (one node, heap {result['heap']}, similarity through the "
        f"{result['mode']} mode), {result['cpus']} CPUs shared with other work (1-minute load "
        f"{result['load_before']:.1f} before, {result['load_after']:.1f} after), "
        f"{result['date']}, {result['minutes']:.0f} min. {result['queries']:,} seeded code "
        "queries per corpus; the standard analyzer; documents routed to shards by `_id` "
        "(the default). The predicted q is the default predictor's at the time of the run: "
        + ", ".join(sorted({c["prediction"]["predictor"] for c in result["corpora"]}))
        + " (the predictor each corpus line records in results.json)."
        + "".join(f" {c['language']} comes from an earlier run ({c['run']['date']}, load "
                  f"{c['run']['load_before']:.1f}), without the pipeline column."
                  for c in result["corpora"]
                  if c.get("run", {}).get("date") not in (None, result["date"])),
        "",
        "## NDCG@10",
        "",
        "| corpus | shards | search type | BM25 | q-log, predicted q | oracle q | q-log, oracle |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for c in result["corpora"]:
        for s in c["settings"]:
            if s["search_type"] == PIPELINE:
                continue
            lines.append(
                f"| {c['language']} ({c['documents']:,}) | {s['shards']} | {s['search_type']} "
                f"| {s['bm25']:.4f} | {s['predicted']:.4f} (q {s['predicted_q']:g}) | "
                f"{s['oracle_q']:g} | {s['oracle']:.4f} |")
    lines += _pipeline_table(result)
    lines += ["", "## Latency of dfs_query_then_fetch", "",
              f"One query at a time, {result.get('latency_queries', 300)} queries x "
              f"{result.get('latency_rounds', 3)} rounds, the search types interleaved; client "
              "wall time.", "",
              "| corpus | shards | similarity | qtf p50 ms | dfs p50 ms | qtf p99 ms | "
              "dfs p99 ms | dfs/qtf p50 | dfs/qtf p99 |",
              "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for c in result["corpora"]:
        for s in c["settings"]:
            if s["search_type"] != "query_then_fetch":
                continue
            for label, lat in s["latency"].items():
                a, b = lat["query_then_fetch"], lat["dfs_query_then_fetch"]
                lines.append(
                    f"| {c['language']} | {s['shards']} | {label} | {a['p50_ms']:.2f} | "
                    f"{b['p50_ms']:.2f} | {a['p99_ms']:.2f} | {b['p99_ms']:.2f} | "
                    f"{lat['dfs_over_qtf']['p50_ms']:.2f} | {lat['dfs_over_qtf']['p99_ms']:.2f} |")
    lines += ["", "Latency was measured on a machine shared with other jobs (load above): "
              "the p50 ratios are the reliable part; p99 is mostly other processes.", "",
              "## Findings", "", *[f"- {f}" for f in findings(result)], "",
              "## What to do", "",
              "- On OpenSearch with the qidf plugin on every node, `qidf apply INDEX --stats "
              "index` (the default `--stats auto` does it on an index of several shards) makes "
              "the server search it with index-wide statistics: the applications change "
              "nothing (table above).",
              "- Elsewhere (Elasticsearch, clusters without the plugin), search with "
              "`search_type=dfs_query_then_fetch`: it gives q-log (and BM25) their one-shard "
              "NDCG@10 back at every shard count measured, for a fraction of a millisecond per "
              "search here. `qidf eval` and `qidf sweep` already search that way.",
              "- Or keep a code index that fits in one shard in one shard.",
              "- Without either, q-log still beats BM25 at the same sharding, but loses part of "
              "its gain (the `left` shares above), and the best q moves (oracle column).",
              "- `qidf show`, `qidf predict` and `qidf check` print what the index's shard count "
              "costs (from this curve) and the fix when an index has more than one shard and "
              "per-shard statistics.", ""]
    (OUT / "README.md").write_text("\n".join(lines))


