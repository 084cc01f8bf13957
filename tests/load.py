"""A bounded search and write load on one index name, for the strategy tests and the apply
benchmark: threads on loopback, each stopping after a fixed number of requests or a fixed
time, counting failed searches, rejected writes and (at the end) lost writes.

A search fails when the engine answers anything but 200 with every shard successful. A write
is rejected when it is not acknowledged (the close strategy: ``index_closed_exception``; the
clone strategy: ``cluster_block_exception``, retryable); it is lost when it was acknowledged
but the document is missing afterwards. Rejections are timestamped so that the window in
which writes failed can be measured from the client's side too, and every write's wait is
kept (a write the engine holds instead of rejecting shows there).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit


@dataclass
class LoadReport:
    searches: int = 0
    failed_searches: int = 0
    writes: int = 0
    rejected_writes: int = 0
    acknowledged: list[str] = field(default_factory=list)
    lost_writes: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    rejected_at: list[float] = field(default_factory=list)  # time.monotonic() of rejections
    failures: list[str] = field(default_factory=list)  # the first failed searches, verbatim
    failed_at: list[float] = field(default_factory=list)
    write_ms: list[float] = field(default_factory=list)  # each write's wait for its answer
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"searches": self.searches, "failed_searches": self.failed_searches,
                "writes": self.writes, "rejected_writes": self.rejected_writes,
                "acknowledged_writes": len(self.acknowledged), "lost_writes": self.lost_writes,
                "errors": dict(sorted(self.errors.items())), "seconds": round(self.seconds, 2),
                **_waits(self.write_ms)}


def _waits(ms: list[float]) -> dict[str, float]:
    """How long writes waited for their answer: a write the engine holds (a primary that is
    starting) is not rejected but waits."""
    if not ms:
        return {}
    ordered = sorted(ms)
    return {"write_p50_ms": round(ordered[len(ordered) // 2], 1),
            "write_max_ms": round(ordered[-1], 1)}


class _Client:
    """One keep-alive HTTP connection (one per thread), reopened after an error."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 9200
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            payload = json.dumps(body) if body is not None else None
            self.conn.request(method, path, payload, {"content-type": "application/json"})
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise
        try:
            return resp.status, json.loads(data or b"null")
        except ValueError:
            return resp.status, None


def _error_type(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("type", "error"))
    return "error"


class Load:
    """``with Load(url, name, words) as load: ...`` runs searches and writes until the block
    ends (or the bounds are reached); ``load.report`` holds the counts."""

    def __init__(self, url: str, name: str, words: list[str], *, search_threads: int = 2,
                 write_threads: int = 1, max_requests: int = 20000, max_seconds: float = 120,
                 pause_s: float = 0.0, field_name: str = "text", seed: int = 0) -> None:
        self.url, self.name, self.words = url, name, words
        self.search_threads, self.write_threads = search_threads, write_threads
        self.max_requests, self.max_seconds, self.pause_s = max_requests, max_seconds, pause_s
        self.field = field_name
        self.seed = seed
        self.report = LoadReport()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._started = 0.0

    def _bounded(self, done: int) -> bool:
        return (self._stop.is_set() or done >= self.max_requests
                or time.monotonic() - self._started > self.max_seconds)

    def _search(self, worker: int) -> None:
        client, rng = _Client(self.url), random.Random(self.seed * 1000 + worker)
        path = f"/{quote(self.name, safe='')}/_search"
        done = 0
        while not self._bounded(done):
            query = " ".join(rng.sample(self.words, min(3, len(self.words))))
            try:
                status, body = client.request("POST", path, {
                    "size": 10, "query": {"match": {self.field: query}}})
                ok = status == 200 and not body.get("timed_out") and \
                    body.get("_shards", {}).get("failed", 1) == 0
                kind = "" if ok else _error_type(body)
                detail = "" if ok else f"{status} {json.dumps(body)[:600]}"
            except (OSError, http.client.HTTPException) as exc:
                ok, kind, detail = False, type(exc).__name__, repr(exc)
            with self._lock:
                self.report.searches += 1
                if not ok and len(self.report.failures) < 20:
                    self.report.failures.append(f"{time.monotonic():.3f} {detail}")
                if not ok:
                    self.report.failed_searches += 1
                    self.report.failed_at.append(time.monotonic())
                    self.report.errors[f"search:{kind}"] = \
                        self.report.errors.get(f"search:{kind}", 0) + 1
            done += 1
            if self.pause_s:
                time.sleep(self.pause_s)

    def _write(self, worker: int) -> None:
        client, rng = _Client(self.url), random.Random(self.seed * 1000 + 500 + worker)
        done = 0
        while not self._bounded(done):
            doc_id = f"load-{self.seed}-{worker}-{done}"
            path = f"/{quote(self.name, safe='')}/_doc/{doc_id}"
            text = " ".join(rng.sample(self.words, min(8, len(self.words))))
            started = time.monotonic()
            try:
                status, body = client.request("PUT", path, {self.field: text})
                ok = status in (200, 201)
                kind = "" if ok else _error_type(body)
            except (OSError, http.client.HTTPException) as exc:
                ok, kind = False, type(exc).__name__
            with self._lock:
                self.report.write_ms.append((time.monotonic() - started) * 1000)
                self.report.writes += 1
                if ok:
                    self.report.acknowledged.append(doc_id)
                else:
                    self.report.rejected_writes += 1
                    self.report.rejected_at.append(time.monotonic())
                    self.report.errors[f"write:{kind}"] = \
                        self.report.errors.get(f"write:{kind}", 0) + 1
            done += 1
            if self.pause_s:
                time.sleep(self.pause_s)

    def __enter__(self) -> Load:
        self._started = time.monotonic()
        for i in range(self.search_threads):
            self._threads.append(threading.Thread(target=self._search, args=(i,), daemon=True))
        for i in range(self.write_threads):
            self._threads.append(threading.Thread(target=self._write, args=(i,), daemon=True))
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)
        self.report.seconds = time.monotonic() - self._started

    def count_lost(self) -> int:
        """Acknowledged writes missing from the index now (after a refresh)."""
        client = _Client(self.url)
        name = quote(self.name, safe="")
        client.request("POST", f"/{name}/_refresh")
        missing = 0
        ids = self.report.acknowledged
        for start in range(0, len(ids), 1000):
            batch = ids[start:start + 1000]
            status, body = client.request("POST", f"/{name}/_mget", {"ids": batch})
            if status != 200:
                raise RuntimeError(f"_mget failed: {status} {body}")
            missing += sum(1 for d in body["docs"] if not d.get("found"))
        self.report.lost_writes = missing
        return missing


def rejection_windows(times: list[float], gap_s: float = 0.5) -> list[float]:
    """Spans of consecutive rejections (split where they pause longer than ``gap_s``)."""
    spans: list[float] = []
    start = last = None
    for t in sorted(times):
        if start is None or last is None or t - last > gap_s:
            if start is not None and last is not None:
                spans.append(last - start)
            start = t
        last = t
    if start is not None and last is not None:
        spans.append(last - start)
    return spans
