"""A timed HTTP client, the blocks of timed searches it runs, and search profiles."""

from __future__ import annotations

import gc
import http.client
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qidf_research.speed.queries import Build, QuerySet
from qidf_research.speed.settings import SYSTEMS


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


def run_block(client: Client, index: str, bodies: Sequence[bytes], build: Build | None = None
              ) -> tuple[list[float], list[int], float]:
    """Python's collector is paused so that a GC pause never lands on one index only.

    With ``build``, each item is a query's text and the latency runs from the text to the
    hits: ``build`` (which may talk to the node over the same connection) and the search."""
    lat: list[float] = []
    took: list[int] = []
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for body in bodies:
            if build is None:
                elapsed, parsed = client.search(index, body)
            else:
                start = time.perf_counter()
                _, parsed = client.search(index, build(body))
                elapsed = time.perf_counter() - start
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
            bodies, build = qs.for_system(system)
            lat, took, wall = run_block(client, names[system], bodies[start:start + chunk],
                                        build)
            b = blocks[system]
            b.latency_ms += lat
            b.took_ms += took
            b.wall_s += wall
    return list(blocks.values())




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
