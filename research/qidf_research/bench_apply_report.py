"""benchmarks/apply/README.md from results.json (and faults.json when the fault matrix ran):
the tables are rendered, never typed, so the README always shows what the runner measured."""

from __future__ import annotations

import json
from typing import Any

from qidf_research.paths import REPO

BENCH = REPO / "benchmarks" / "apply"
FAULTS = BENCH / "faults.json"
FAULTS_26 = BENCH / "faults-stats-reopen.json"  # tests/integration/test_faults_stats_reopen.py
OPENSEARCH = BENCH / "results.json"
ELASTICSEARCH = BENCH / "results-elasticsearch.json"

INTRO = """# Changing the similarity of a live index: what each strategy costs

`qidf apply` / `qidf revert` with `--strategy close` (close, update, reopen),
`--strategy clone` (write-block, clone with the new similarity, move the names in one atomic
`_aliases` call) and, on Elasticsearch 8.12+, `--strategy reopen` (one
`_settings?reopen=true` call in which the engine closes, updates and reopens the index),
measured on a real node under a steady search and write load, plus the fault matrix that
checks every interruption leaves the index open and consistent.

Regenerate (the benchmark starts and stops its own node on `--port`):

```bash
.venv/bin/python -m qidf_research.bench_apply --port 9218 \\
    --out benchmarks/apply/results.json --readme benchmarks/apply/README.md
.venv/bin/python -m qidf_research.bench_apply --port 9219 --engine elasticsearch-8.19.21 \\
    --plugin-zip "$(scripts/build_plugin.sh es-8.19.21 --skip-tests | tail -n 1)" \\
    --sizes 10000,100000 --out benchmarks/apply/results-elasticsearch.json \\
    --readme benchmarks/apply/README.md
QIDF_TEST_PORT=9250 ./scripts/test_faults.sh      # the fault matrix -> faults.json (and
                                                  # faults-stats-reopen.json)
.venv/bin/python -m qidf_research.bench_apply --readme-only \\
    --out benchmarks/apply/results.json --readme benchmarks/apply/README.md
```
"""


def _load_table(results: dict[str, Any]) -> list[str]:
    load = results["load"]
    names = list(load)
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]

    def row(label: str, fn: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(str(fn(load[s])) for s in names) + " |")

    row("swaps (apply/revert alternating)", lambda r: len(r["swaps"]))
    row("searches", lambda r: f"{r['load']['searches']:,}")
    row("failed searches, all swaps", lambda r: r["load"]["failed_searches"])
    row("failed searches, swaps after the first (clone: alias moves)",
        lambda r: r["failed_searches_without_conversion"])
    row("failed searches per swap, median", lambda r: sorted(
        w["failed_searches"] for w in r["swaps"])[len(r["swaps"]) // 2])
    row("writes attempted", lambda r: f"{r['load']['writes']:,}")
    row("writes rejected", lambda r: f"{r['load']['rejected_writes']:,}")
    row("acknowledged writes lost", lambda r: r["lost_writes"])
    if any("write_max_ms" in r["load"] for r in load.values()):
        row("longest wait of a write for its answer", _longest_write)
    row("closed / write-blocked window, median (qidf)", lambda r: f"{r['window_s']['median']} s")
    row("closed / write-blocked window, max (qidf)", lambda r: f"{r['window_s']['max']} s")
    if "reopen" in names:
        row("recovery after the reopen (primaries active), median", _recovery)
    row("window seen by the writers, median",
        lambda r: f"{r['client_rejection_window_s']['median']} s")
    row("window seen by the writers, max",
        lambda r: f"{r['client_rejection_window_s']['max']} s")
    return lines


def _longest_write(run: dict[str, Any]) -> str:
    ms = run["load"].get("write_max_ms")
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def _recovery(run: dict[str, Any]) -> str:
    """The part of the window spent waiting for primaries after the engine reopened the
    index (the reopen strategy's ``searchable`` step); "-" where there is no such step."""
    parts = [w["steps_s"].get("searchable") for w in run["swaps"]
             if run["strategy"] == "reopen"]
    parts = sorted(p for p in parts if p is not None)
    return f"{parts[len(parts) // 2]:.3f} s" if parts else "-"


def _size_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| documents | store (primary) | strategy | apply | its window | revert "
             "| its window |", "|---:|---:|---|---:|---:|---:|---:|"]
    by_key: dict[tuple[int, str], dict[str, Any]] = {}
    for r in rows:
        by_key.setdefault((r["documents"], r["strategy"]), {})[r["action"]] = r
    for (docs, strategy), pair in sorted(by_key.items()):
        a, v = pair["apply"], pair["revert"]
        lines.append(f"| {docs:,} | {a['store_bytes'] / 2**20:,.0f} MB | {strategy} | "
                     f"{a['seconds']:.2f} s | {a['window_s']:.2f} s | {v['seconds']:.2f} s | "
                     f"{v['window_s']:.2f} s |")
    return lines


def _faults() -> list[str]:
    if not FAULTS.exists():
        return ["The fault matrix has not been run here (scripts/test_faults.sh)."]
    data = json.loads(FAULTS.read_text())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(data["faults_by_kind"].items()))
    ends = ", ".join(f"{k} {v}" for k, v in sorted(data["ended_old_or_new"].items()))
    strategies = ", ".join(f"{k} {v}" for k, v in sorted(data["faults_by_strategy"].items()))
    return [
        f"- **{data['faults']} injected faults**, **{data['inconsistent']} left an index "
        "closed or inconsistent** after the next qidf command.",
        f"- By kind: {kinds}. By strategy: {strategies}.",
        f"- Where the next command left the index: {ends} (old = rolled back, new = "
        "finished).",
        f"- **{data['races']} concurrent-apply races**, {data['races_inconsistent']} "
        f"inconsistent; in {data['races_with_a_loser']} one run lost the lease and printed "
        "one line naming the holder (in the others the second run started after the first "
        "had finished, and both succeeded in turn).",
        _fuzz_line(data),
    ]


def _fuzz_line(data: dict[str, Any]) -> str:
    if not data.get("fuzzed_names"):
        return ("- Fuzzed index names: the case did not complete in this run, so nothing is "
                "counted here (see the default suite's fuzz in tests/integration/"
                "test_strategies.py).")
    return (f"- **{data['fuzzed_names']} fuzzed index names** (unicode, percent signs, "
            "dots, 255 bytes) applied and reverted beside look-alike decoys: "
            f"{data.get('wrong_index_changes', 0)} changes to an index other than the one "
            "named.")


def _swaps(results: dict[str, Any], title: str) -> list[str]:
    m = results["machine"]
    first = next(iter(results["load"].values()))
    out = [title, "",
           f"{results['engine']}, one node, 2 shared CPU cores (load average "
           f"{m['loadavg_start'][0]:.1f} at the start, {m.get('loadavg_end', [0])[0]:.1f} at "
           "the end: other engineers' jobs ran on the same machine, so absolute times are "
           f"inflated), git {m['git'][:10]}, similarity through "
           f"{'the plugin' if results.get('mode') == 'plugin' else 'Painless'}. Index: "
           f"{first['documents']:,} real Go docstrings, one shard, no replica; load: 2 threads "
           "searching and 1 writing, back to back, on 127.0.0.1.", ""]
    out += _load_table(results)
    errors = "; ".join(f"{s} {r['load']['errors']}" for s, r in results["load"].items())
    return [*out, "", f"Errors seen by the clients: {errors}.", ""]


def _conversions(results: dict[str, Any]) -> list[str]:
    conv = results["conversions"]
    return ["When clients name the index itself, the first clone swap deletes it and adds an "
            "alias of the same name in the same `_aliases` call (`remove_index`); searches in "
            "flight on the deleted index fail (HTTP 503, all shards failed). Later swaps move "
            "the alias and delete the old index only after its searches have finished. "
            f"Failed searches in {len(conv['runs'])} such conversions under the same load: "
            f"{conv['failed_searches']} (lost writes: {conv['lost_writes']}).", ""]


def _faults_26() -> list[str]:
    if not FAULTS_26.exists():
        return []
    data = json.loads(FAULTS_26.read_text())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(data["faults_by_kind"].items()))
    strategies = ", ".join(f"{k} {v}" for k, v in sorted(data["faults_by_strategy"].items()))
    ends = ", ".join(f"{k} {v}" for k, v in sorted(data["ended_old_or_new"].items()))
    return ["", "`tests/integration/test_faults_stats_reopen.py` (the same script): "
            f"**{data['faults']} faults** around `--strategy reopen` on Elasticsearch 8.19.21 "
            "and the `--stats index` pipeline step on a 3-shard OpenSearch 2.19.6 index, "
            f"**{data['inconsistent']} inconsistent**. By kind: {kinds}. By strategy: "
            f"{strategies}. Ends: {ends}."]


def render_readme(results: dict[str, Any], es: dict[str, Any] | None = None) -> str:
    out = [INTRO, *_swaps(results, "## Swaps under load"),
           "## The first clone swap of a concrete index", "", *_conversions(results),
           "## Apply time by index size", "",
           "Each index force-merged to one segment. 100K and 1M repeat the 13,994 shipped "
           "Go docstrings with distinct ids (`<id>~<k>`): real text, repeated. No load.", ""]
    out += _size_table(results["sizes"])
    if es is not None:
        out += ["", *_swaps(es, f"## {es['engine']}: close, clone and reopen"),
                "`reopen`'s window is the one `PUT _settings?reopen=true` call plus the wait "
                "for the primaries it leaves initialising (the recovery row); qidf makes no "
                "call while the index is closed. Searches fail during it as with close (a "
                "red index answers a search at once, so the failed-search count grows with "
                "how fast clients retry: compare the windows); writes are not refused but "
                "held by the engine until the primary is active (the longest-wait row). "
                "First clone swap of a concrete index here: "
                f"{es['conversions']['failed_searches']} failed searches.", "",
                *_size_table(es["sizes"])]
    out += ["", "## Fault matrix (scripts/test_faults.sh)", "", *_faults(), *_faults_26()]
    out += ["", "Raw numbers: `results.json`, `results-elasticsearch.json` (per swap: window, "
            "command time, each step's time), `faults.json` and `faults-stats-reopen.json` "
            "(one row per fault)."]
    return "\n".join(out) + "\n"


def write_readme(out: Any, readme: Any) -> None:
    """The README from the saved results of both engines (whichever exist)."""
    main = json.loads(OPENSEARCH.read_text())
    es = json.loads(ELASTICSEARCH.read_text()) if ELASTICSEARCH.exists() else None
    readme.write_text(render_readme(main, es))
