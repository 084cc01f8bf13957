"""Statistics snapshots at 100K and 1M documents, and what 10M would take: the time of a take
and a refresh, the snapshot's size and the heap it holds on every node, and how its
vocabulary grows (issue 34).

Documents: real source code, never repeated and never synthetic: every ``.go`` file of the
Go module cache the corpus builder downloaded (``QIDF_RESEARCH_CACHE``/sources/gomod: the 106
pinned modules of go-large, kubernetes, etcd, prometheus, cilium, ...) and of the Go
toolchain (``/usr/local/go/src``), then Rust crates and npm packages' sources where more are
needed, cut into chunks of 25 lines (vendored copies and ``testdata`` skipped, exact
duplicate chunks dropped), in path order. The first 100,000, 300,000 and 1,000,000 chunks
are three indices (3 shards each, one node, segments as indexing left them), indexed with the
standard analyzer like every code index of the benchmarks.

On each: ``qidf apply --stats snapshot`` (the first take), then ``qidf snapshot refresh``
three times (client wall time of the whole command and the plugin's own ``took_ms``), the
snapshot's terms, stored bytes and FST heap (Lucene's ``ramBytesUsed`` of what every data node
holds), and the node's JVM heap used before and after. The vocabulary at 100K, 300K and 1M
documents (every term, and the terms of df >= 2 the snapshot keeps) is read from snapshots of
index prefixes (a ``filtered`` take is not needed: each prefix is its own index), and a power
law (Heaps' law) fitted to it gives the vocabulary, and with the measured bytes per term the
heap, at 10,000,000 documents: this machine holds no 10M documents of real code, so 10M is an
extrapolation, said so wherever it is reported.

    QIDF_RESEARCH_CACHE=/work/cache/research nice -n 10 .venv/bin/python -m \\
        qidf_research.sharding_snapshot_scale --url http://127.0.0.1:9247

writes ``benchmarks/sharding/snapshot-scale.json`` and ``snapshot-scale.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.stats import snapshot as api
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.paths import REPO
from qidf_research.sharding_report import OUT

LINES = 25
SIZES = (100_000, 300_000, 1_000_000)
TIMED = (100_000, 1_000_000)  # sizes whose take and refreshes are timed
SHARDS = 3
REFRESHES = 3
TARGET_S = 60.0
EXTRAPOLATE_TO = 10_000_000
ROOTS = (("gomod", ".go"), ("goroot", ".go"), ("crates", ".rs"), ("npm", ".ts"),
         ("npm", ".js"))
JSON_OUT = OUT / "snapshot-scale.json"
MD_OUT = OUT / "snapshot-scale.md"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _root(name: str) -> Path:
    if name == "goroot":
        return Path(os.environ.get("GOROOT", "/usr/local/go")) / "src"
    return RESEARCH_CACHE / "sources" / name


def source_files() -> Iterator[tuple[str, Path]]:
    for name, suffix in ROOTS:
        root = _root(name)
        if not root.is_dir():
            continue
        for path in sorted(root.rglob(f"*{suffix}")):
            parts = set(path.relative_to(root).parts)
            if parts & {"vendor", "testdata", "node_modules"} and name != "npm":
                continue
            if path.is_file():
                yield f"{name}/{path.relative_to(root)}", path


def chunks(limit: int) -> Iterator[tuple[str, str]]:
    """(id, text) of the first ``limit`` distinct 25-line chunks of real source code."""
    seen: set[bytes] = set()
    made = 0
    for rel, path in source_files():
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for start in range(0, len(lines), LINES):
            text = "\n".join(lines[start:start + LINES])
            if len(text.strip()) < 20:
                continue
            digest = hashlib.blake2b(text.encode(), digest_size=12).digest()
            if digest in seen:
                continue
            seen.add(digest)
            yield f"{rel}:{start + 1}", text
            made += 1
            if made >= limit:
                return


def ensure_index(cluster: Cluster, name: str, size: int) -> int:
    """The first ``size`` chunks in ``name`` (kept and reused when complete)."""
    fingerprint = f"snapshot-scale-v2/{size}/{LINES}/{SHARDS}"
    try:
        meta = cluster.request("GET", index_path(name, "_mapping"))[name]["mappings"].get(
            "_meta") or {}
        if meta.get("qidf_bench") == fingerprint:
            return int(indexing.doc_count(cluster, name) or 0)
        cluster.request("DELETE", index_path(name))
    except ClusterError as exc:
        if exc.status != 404:
            raise
    started = time.monotonic()
    indexing.create_index(cluster, name, shards=SHARDS)
    batch: dict[str, str] = {}
    sent = 0
    for doc_id, text in chunks(size):
        batch[doc_id] = text
        if len(batch) == 10_000:
            indexing.bulk_index(cluster, name, batch, batch_size=2000)
            sent += len(batch)
            batch = {}
            if sent % 100_000 == 0:
                log(f"{name}: {sent:,} documents sent")
    if batch:
        indexing.bulk_index(cluster, name, batch, batch_size=2000)
    cluster.request("POST", index_path(name, "_refresh"))
    done = int(indexing.doc_count(cluster, name) or 0)
    # Segments as indexing left them (several per shard): what a live index has.
    cluster.request("PUT", index_path(name, "_mapping"), {"_meta": {"qidf_bench": fingerprint}})
    log(f"indexed {name}: {done:,} documents in {time.monotonic() - started:.0f} s")
    return done


def heap_used(cluster: Cluster) -> int:
    nodes = cluster.request("GET", "/_nodes/stats/jvm")["nodes"]
    return sum(int(n["jvm"]["mem"]["heap_used_in_bytes"]) for n in nodes.values())


def cli(url: str, *args: str) -> tuple[float, int, str]:
    """``qidf ARGS --url URL --json`` in a child process: wall seconds, exit code, stdout."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "qidf_ctl", *args, "--url", url, "--json"],
                          capture_output=True, text=True, cwd=REPO, timeout=3600)
    return time.monotonic() - started, done.returncode, done.stdout


def vocabulary(cluster: Cluster, index: str) -> dict[str, Any]:
    """Every term and the df >= 2 ones, from two takes under scratch keys (then deleted)."""
    found: dict[str, Any] = {}
    for min_df in (1, 2):
        key = f"qidf-scale-vocab-{min_df}"
        cluster.request("POST", index_path(index, "_refresh"))
        took = api.take(cluster, key, index, [indexing.FIELD], "benchmark") if min_df == 2 \
            else dict(cluster.request("PUT", api.key_path(cluster, key), {
                "index": index, "fields": [indexing.FIELD], "min_doc_freq": 1}))
        found[f"terms_df{min_df}"] = int(took["terms"])
        found[f"heap_bytes_df{min_df}"] = node_heap(took)
        found[f"bytes_df{min_df}"] = int(took["bytes"])
        api.delete(cluster, key)
    return found


def node_heap(found: dict[str, Any]) -> int:
    """The FST heap a data node holds after loading the snapshot (the largest, if several)."""
    held = ((found.get("nodes") or {}).get("held") or {}).values()
    return max(int((n.get("state") or {}).get("heap_bytes") or 0) for n in held)


def timed(cluster: Cluster, url: str, index: str) -> dict[str, Any]:
    """The first take (apply --stats snapshot) and the refreshes, through the real CLI."""
    cli(url, "revert", index)
    before = heap_used(cluster)
    wall, code, out = cli(url, "apply", index, "--q", "0.3", "--mode", "plugin", "--stats",
                          "snapshot")
    assert code == 0, out
    first = api.info(cluster, index) or {}
    row: dict[str, Any] = {"apply_wall_s": round(wall, 1), "apply_take_ms": first.get("took_ms"),
                           "terms": first.get("terms"), "bytes": first.get("bytes"),
                           "heap_bytes": node_heap(first), "heap_used_before": before,
                           "heap_used_after": heap_used(cluster), "refreshes": []}
    for _ in range(REFRESHES):
        wall, code, out = cli(url, "snapshot", "refresh", index)
        assert code == 0, out
        took = json.loads(out).get("snapshot") or {}
        row["refreshes"].append({"wall_s": round(wall, 1), "took_ms": took.get("took_ms"),
                                 "load": round(os.getloadavg()[0], 1)})
        log(f"{index}: refresh {wall:.1f} s (took {took.get('took_ms')} ms in the engine)")
    held = api.info(cluster, index) or {}
    row["nodes"] = {k: (v.get("state") or {}).get("heap_bytes")
                    for k, v in ((held.get("nodes") or {}).get("held") or {}).items()}
    cli(url, "revert", index)
    return row


def fit(points: list[tuple[int, int]]) -> tuple[float, float]:
    """Least squares of log V = log k + beta log n: (k, beta)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(v) for _, v in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    beta = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)
    return math.exp(my - beta * mx), beta


def extrapolate(growth: list[dict[str, Any]]) -> dict[str, Any]:
    k, beta = fit([(g["documents"], g["terms_df2"]) for g in growth])
    k1, beta1 = fit([(g["documents"], g["terms_df1"]) for g in growth])
    largest = max(growth, key=lambda g: g["documents"])
    per_term = largest["heap_bytes_df2"] / largest["terms_df2"]
    terms = k * EXTRAPOLATE_TO ** beta
    return {"documents": EXTRAPOLATE_TO, "beta_df2": beta, "beta_df1": beta1,
            "terms_df2": round(terms), "terms_df1": round(k1 * EXTRAPOLATE_TO ** beta1),
            "heap_bytes_per_term": per_term, "heap_bytes": round(terms * per_term)}


def write(result: dict[str, Any]) -> None:
    mib = 2 ** 20
    lines = ["# Statistics snapshots at 100K and 1M documents (10M extrapolated)", "",
             "Generated by `python -m qidf_research.sharding_snapshot_scale` (its docstring has "
             "the method). Regenerate with:", "", "```",
             "QIDF_RESEARCH_CACHE=/work/cache/research nice -n 10 .venv/bin/python -m "
             "qidf_research.sharding_snapshot_scale --url http://127.0.0.1:9247", "```", "",
             f"Engine {result['engine']}, one node, heap {result['heap']}; {SHARDS} shards; "
             f"real source code in {LINES}-line chunks (no repetition); {result['cpus']} CPUs "
             f"shared with other work (1-minute load {result['load_before']:.1f} before, "
             f"{result['load_after']:.1f} after); {result['date']}.", "",
             "## Take and refresh", "",
             "| documents | first take (apply, wall s) | refresh wall s (each) | refresh in the "
             "engine s | terms kept (df >= 2) | stored MiB | FST heap per node MiB |",
             "|---:|---:|---|---|---:|---:|---:|"]
    for size, row in sorted(result["timed"].items(), key=lambda kv: int(kv[0])):
        refreshes = row["refreshes"]
        lines.append(
            f"| {int(size):,} | {row['apply_wall_s']:.1f} | "
            + ", ".join(f"{r['wall_s']:.1f} (load {r['load']:.0f})" for r in refreshes) + " | "
            + ", ".join(f"{(r['took_ms'] or 0) / 1000:.1f}" for r in refreshes)
            + f" | {row['terms']:,} | {row['bytes'] / mib:.1f} | "
            f"{row['heap_bytes'] / mib:.1f} |")
    lines += ["", "## Vocabulary growth", "",
              "| documents | every term | terms of df >= 2 (kept) | FST heap, every term MiB | "
              "FST heap, df >= 2 MiB |", "|---:|---:|---:|---:|---:|"]
    for g in result["growth"]:
        lines.append(f"| {g['documents']:,} | {g['terms_df1']:,} | {g['terms_df2']:,} | "
                     f"{g['heap_bytes_df1'] / mib:.1f} | {g['heap_bytes_df2'] / mib:.1f} |")
    e = result["extrapolated"]
    lines += ["", "## 10,000,000 documents (extrapolated, not measured)", "",
              f"A power law V = k n^beta fitted to the vocabulary above (beta = "
              f"{e['beta_df2']:.3f} for the terms a snapshot keeps, {e['beta_df1']:.3f} for every "
              f"term) gives {e['terms_df2']:,} kept terms ({e['terms_df1']:,} in all) at "
              f"{e['documents']:,} documents; at the {e['heap_bytes_per_term']:.1f} heap bytes "
              f"per kept term measured at the largest size, a snapshot of them holds about "
              f"{e['heap_bytes'] / mib:.0f} MiB on every data node. Code vocabularies keep "
              "growing (identifiers): the estimate assumes this corpus's rate holds.", "",
              "## Target", "",
              f"- {result['target']}", ""]
    MD_OUT.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("QIDF_URL", "http://127.0.0.1:9247"))
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    if args.report_only:
        write(json.loads(JSON_OUT.read_text()))
        return 0
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    load_before = os.getloadavg()[0]
    growth, timed_rows = [], {}
    for size in SIZES:
        name = f"qidf-snapscale-{size // 1000}k"
        have = ensure_index(cluster, name, size)
        row = {"documents": have, **vocabulary(cluster, name)}
        growth.append(row)
        log(f"{name}: {row}")
        if size in TIMED:
            timed_rows[str(size)] = timed(cluster, args.url, name)
    refresh_1m = [r["wall_s"] for r in timed_rows.get(str(SIZES[-1]), {}).get("refreshes", [])]
    worst = max(refresh_1m) if refresh_1m else float("nan")
    jvm = cluster.request("GET", "/_nodes/stats/jvm")["nodes"]
    heap = next(iter(jvm.values()))["jvm"]["mem"]["heap_max_in_bytes"]
    result = {"engine": str(cluster.engine), "heap": f"{heap / 2**30:.1f} GiB",
              "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
              "load_before": load_before, "load_after": os.getloadavg()[0],
              "growth": growth, "timed": timed_rows, "extrapolated": extrapolate(growth),
              "target": f"{'met' if worst <= TARGET_S else 'NOT met'}: refresh of the "
                        f"{growth[-1]['documents']:,}-document index took at most {worst:.1f} s "
                        f"(target <= {TARGET_S:.0f} s)"}
    JSON_OUT.write_text(json.dumps(result, indent=1) + "\n")
    write(result)
    print(result["target"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
