#!/usr/bin/env python3
"""
What a ``qidf mcp`` tool call costs, measured side by side with a direct ``_search``.

The demo's Go corpus (13,994 docstrings, the generic ``standard`` analyzer, one shard) and its
500 code queries. ``qidf mcp INDEX --q Q`` runs as a client starts it: a subprocess on stdio,
driven by the ``mcp`` SDK's own client. For every query, in an order shuffled each round and
alternating which goes first, the benchmark times

- **tool**: ``search_code`` (default budget 8,000 tokens, 50 results), from the client's call
  to its parsed result: JSON-RPC over the pipes, the query's ``_analyze``, its df (from the
  cache, warm), the search, counting the hits' tokens, packing them, the JSON back;
- **direct**: the very request the tool sends (the same boosted body, size and ``_source``),
  as one ``_search`` through the same client library (``Cluster.request``);
- **direct + analyze**: the ``_analyze`` and that ``_search``: what an application needs to
  send the same ranking itself, without the server;
- **core**: ``Retrieval.search`` in the benchmark's own process, what the tool runs on the
  server (``_analyze``, cached df, the search, counting and packing) without the protocol;
- **empty call**: ``describe_ranking`` through the same client: the protocol alone.

A ``match`` query of the same text (what an agent searching the cluster itself might send) is
not timed: a function's code has more distinct tokens than ``max_clause_count`` allows on many
queries; the warm-up pass counts on how many it fails.

Before timing, one pass of every query through both warms the JVM and the df cache (every
query's terms cached: the warm state of a server that has run a while; a cold term costs one
``_termvectors`` request more, measured in ``benchmarks/speed/``). The tool's hits are
checked equal to the direct search's packed by the same walk, for every query.

    .venv/bin/python -m qidf_research.bench_agents --url http://127.0.0.1:9245

Writes ``benchmarks/agents/results.json``; ``benchmarks/agents/README.md`` holds the table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from qidf_ctl import demo
from qidf_ctl.agents import Retrieval
from qidf_ctl.agents.retrieval import DEFAULT_MAX_HITS
from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.evaluation.budget import source_text
from qidf_ctl.evaluation.metrics import budget_prefix
from qidf_ctl.evaluation.queries import analyze
from qidf_ctl.evaluation.score import DEFAULT_BUDGET
from qidf_ctl.evaluation.tokens import counter
from qidf_research.paths import BENCHMARKS

INDEX = "qidf-bench-agents"  # --copies N > 1: INDEX-xN


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="an OpenSearch or Elasticsearch node")
    ap.add_argument("--q", type=float, default=0.3)
    ap.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    ap.add_argument("--queries", type=int, default=500, help="the demo's code queries")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--copies", type=int, default=1,
                    help="index every docstring this many times (a larger index whose search "
                    "costs more; the protocol's cost stays the same)")
    ap.add_argument("--keep-index", action="store_true")
    ap.add_argument("--out", type=Path, default=BENCHMARKS / "agents" / "results.json")
    return ap.parse_args(argv)


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {"p50_ms": round(statistics.median(ordered) * 1000, 3),
            "p90_ms": round(at(0.90) * 1000, 3), "p99_ms": round(at(0.99) * 1000, 3),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 3), "n": len(ordered)}


class Direct:
    """The requests an application would send itself, timed."""

    def __init__(self, cluster: Cluster, retrieval: Retrieval) -> None:
        self.cluster, self.retrieval = cluster, retrieval
        self.index = retrieval.index
        self.count = counter("cl100k")

    def search(self, query: dict[str, Any], params: dict[str, str]) -> list[dict[str, Any]]:
        body = {"query": query, "size": DEFAULT_MAX_HITS, "from": 0, "track_total_hits": False}
        resp = self.cluster.request("POST", index_path(self.index, "_search"), body, params or None)
        return list(resp["hits"]["hits"])

    def packed_ids(self, hits: list[dict[str, Any]]) -> list[str]:
        field = self.retrieval.ranking.field
        lengths = [self.count(source_text(h.get("_source") or {}, field)) for h in hits]
        return [str(h["_id"]) for h in hits[:budget_prefix(lengths, DEFAULT_BUDGET)]]


@contextlib.asynccontextmanager
async def connect(args: argparse.Namespace) -> AsyncIterator[Any]:
    """The SDK's client to ``qidf mcp`` as a client starts it: a subprocess on stdio, or a
    process on streamable HTTP (a free port on 127.0.0.1)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    argv = ["-m", "qidf_ctl", "mcp", args.index, "--url", args.url, "--q", str(args.q)]
    env = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    with open(os.devnull, "w") as quiet:
        if args.transport == "stdio":
            server = StdioServerParameters(command=sys.executable, args=argv, env=env)
            async with Client(stdio_client(server, errlog=quiet)) as client:
                yield client
            return
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        proc = subprocess.Popen([sys.executable, *argv, "--transport", "http", "--port",
                                 str(port)], stdout=quiet, stderr=quiet,
                                env={**os.environ, **env})
        try:
            while True:
                if proc.poll() is not None:
                    raise SystemExit(f"qidf mcp exited with {proc.returncode}")
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                await asyncio.sleep(0.2)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                yield client
        finally:
            proc.terminate()
            proc.wait(timeout=30)


async def measure(args: argparse.Namespace, cluster: Cluster, texts: dict[str, str]
                  ) -> dict[str, Any]:
    retrieval = Retrieval.connect(cluster, args.index, q=args.q)
    direct = Direct(cluster, retrieval)
    requests = {qid: retrieval.request(text) for qid, text in texts.items()}
    started = time.perf_counter()
    async with connect(args) as client:
        ready_s = time.perf_counter() - started
        times: dict[str, list[float]] = {"tool": [], "direct": [], "direct + analyze": [],
                                         "core": [], "empty call": []}
        per_round: list[dict[str, float]] = []
        result_tokens: list[int] = []
        hits_n: list[int] = []

        async def tool(text: str) -> dict[str, Any]:
            t = time.perf_counter()
            res = await client.call_tool("search_code", {"query": text})
            times["tool"].append(time.perf_counter() - t)
            body = getattr(res.content[0], "text", "")
            assert not res.is_error, body
            result_tokens.append(direct.count(body))
            return json.loads(body)  # type: ignore[no-any-return]

        def plain(qid: str) -> list[dict[str, Any]]:
            t = time.perf_counter()
            hits = direct.search(*requests[qid])
            times["direct"].append(time.perf_counter() - t)
            return hits

        def analysed(qid: str) -> None:
            t = time.perf_counter()
            analyze(cluster, args.index, retrieval.ranking.field, texts[qid])
            direct.search(*requests[qid])
            times["direct + analyze"].append(time.perf_counter() - t)
            t = time.perf_counter()
            retrieval.search(texts[qid])
            times["core"].append(time.perf_counter() - t)

        def match_fails(qid: str) -> bool:
            try:
                direct.search({"match": {retrieval.ranking.field: texts[qid]}}, {})
            except ClusterError as exc:
                return "maxClauseCount" in str(exc) or "too_many" in str(exc)
            return False

        log(f"server ready in {ready_s:.1f} s; warm-up pass over {len(texts)} queries")
        mismatched = match_failed = 0
        for qid, text in texts.items():
            got = await tool(text)
            mismatched += [h["id"] for h in got["hits"]] != direct.packed_ids(plain(qid))
            analysed(qid)
            match_failed += match_fails(qid)
            hits_n.append(len(got["hits"]))
        for series in times.values():
            series.clear()
        result_tokens.clear()
        rng = random.Random(args.seed)
        for r in range(args.rounds):
            order = list(texts)
            rng.shuffle(order)
            marks = {k: len(v) for k, v in times.items()}
            for i, qid in enumerate(order):
                if (i + r) % 2:
                    await tool(texts[qid])
                    plain(qid)
                else:
                    plain(qid)
                    await tool(texts[qid])
                analysed(qid)
                t = time.perf_counter()
                await client.call_tool("describe_ranking", {})
                times["empty call"].append(time.perf_counter() - t)
            round_p50 = {k: statistics.median(v[marks[k]:]) for k, v in times.items()}
            per_round.append({f"tool/{k}": round_p50["tool"] / round_p50[k]
                              for k in times if k != "tool"})
            log(f"round {r + 1}/{args.rounds}: p50 tool {round_p50['tool'] * 1000:.2f} ms, "
                f"direct {round_p50['direct'] * 1000:.2f} ms, ratio "
                f"{per_round[-1]['tool/direct']:.3f}")
    summary = {k: percentiles(v) for k, v in times.items()}
    return {
        "server_ready_s": round(ready_s, 2),
        "latency": summary,
        "p50_ratio_tool_over": {k: round(summary["tool"]["p50_ms"] / v["p50_ms"], 3)
                                for k, v in summary.items() if k != "tool"},
        "per_round": [{k: round(v, 3) for k, v in r.items()} for r in per_round],
        "hits_per_call_mean": round(statistics.fmean(hits_n), 1),
        "result_tokens_per_call": {"mean": round(statistics.fmean(result_tokens), 1),
                                   "p50": statistics.median(result_tokens),
                                   "max": max(result_tokens)},
        "queries_whose_hits_differ_from_the_direct_search": mismatched,
        "queries_a_match_query_refuses": match_failed,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    task = demo.load_task(max_queries=args.queries)
    args.index = INDEX if args.copies == 1 else f"{INDEX}-x{args.copies}"
    corpus = task.corpus if args.copies == 1 else {
        f"{doc}#{k}": text for k in range(args.copies) for doc, text in task.corpus.items()}
    log(f"indexing {len(corpus):,} docstrings into {args.index} (if missing)")
    indexing.ensure_index(cluster, args.index, corpus)
    started = time.time()
    load_before = os.getloadavg()
    try:
        measured = asyncio.run(measure(args, cluster, task.queries))
    finally:
        if not args.keep_index:
            cluster.request("DELETE", index_path(args.index))
    result = {
        "engine": f"{cluster.engine.distribution} {cluster.engine.version}",
        "index": {"name": args.index, "documents": len(corpus), "copies": args.copies,
                  "shards": 1, "analyzer": "standard"},
        "queries": len(task.queries), "rounds": args.rounds, "q": args.q,
        "transport": args.transport,
        "tool_arguments": {"budget_tokens": DEFAULT_BUDGET, "max_results": DEFAULT_MAX_HITS},
        **measured,
        "wall_s": round(time.time() - started, 1),
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_after": [round(x, 1) for x in os.getloadavg()],
        "command": "python -m qidf_research.bench_agents " + " ".join(argv or sys.argv[1:]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    log(f"wrote {args.out}: p50 ratios {result['p50_ratio_tool_over']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
