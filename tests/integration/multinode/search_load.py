"""Searches running in the background while something changes the cluster, each judged.

Plain HTTP (urllib), no client library: what counts as a failure is decided here, not by a
client's retry policy. Every search goes to the next node's URL in turn; when a node refuses
the connection (it is restarting) the same search goes to the next node, as any client with
several hosts does, and is counted as ``rerouted``. A search **fails** when no node answers,
the answer is an HTTP error, some shards failed (``_shards.failed``) or did not answer
(``successful + skipped < total``: HTTP 200 and ``failed: 0``, yet shards missing, which is
what an unassigned primary gives), or the hit count is not the index's known count for that
query.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    started: float
    seconds: float
    ok: bool
    error: str = ""


@dataclass
class LoadReport:
    searches: int
    failed: int
    rerouted: int
    failures: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def failed_between(self, start: float, end: float) -> int:
        return sum(start <= f.started <= end for f in self.failures)

    def summary(self) -> str:
        kinds: dict[str, int] = {}
        for f in self.failures:
            kinds[f.error[:300]] = kinds.get(f.error[:300], 0) + 1
        return (f"{self.searches} searches in {self.seconds:.1f}s, {self.failed} failed, "
                f"{self.rerouted} rerouted to another node" +
                (f"; failures: {kinds}" if kinds else ""))


def _post(url: str, path: str, body: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
    req = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


def expected_totals(url: str, index: str, field_name: str, texts: list[str]) -> dict[str, int]:
    """Hit counts of each query now, before anything changes."""
    return {t: _post(url, f"/{index}/_search", _body(field_name, t))["hits"]["total"]["value"]
            for t in texts}


def _body(field_name: str, text: str) -> dict[str, Any]:
    return {"size": 10, "track_total_hits": True, "query": {"match": {field_name: text}}}


class SearchLoad:
    """``with SearchLoad(urls, index, field, expected) as load: ...``; then ``load.report``."""

    def __init__(self, urls: list[str], index: str, field_name: str,
                 expected: dict[str, int], threads: int = 2, search_type: str | None = None):
        self.urls, self.index, self.field = urls, index, field_name
        self.expected = expected
        self.threads = threads
        self.path = f"/{index}/_search" + (f"?search_type={search_type}" if search_type else "")
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._outcomes: list[Outcome] = []
        self._rerouted = 0
        self._workers: list[threading.Thread] = []
        self.report = LoadReport(0, 0, 0)

    def _one(self, text: str, first: int) -> Outcome:
        started = time.monotonic()
        for k in range(len(self.urls)):
            url = self.urls[(first + k) % len(self.urls)]
            try:
                resp = _post(url, self.path, _body(self.field, text))
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")
                with contextlib.suppress(ValueError, KeyError, TypeError, IndexError):
                    error = json.loads(detail)["error"]
                    root = (error.get("root_cause") or [{}])[0]
                    detail = error["type"]
                    if root:  # what failed underneath the search phase, and where
                        detail += (f" ({root.get('type')}: {str(root.get('reason'))[:160]};"
                                   f" sent to {url})")
                return Outcome(started, time.monotonic() - started, False,
                               f"HTTP {exc.code} {detail}")
            except (OSError, urllib.error.URLError):
                with self._lock:
                    self._rerouted += 1
                continue
            shards = resp.get("_shards", {})
            if shards.get("failed"):
                reasons = sorted({str((f.get("reason") or {}).get("type")) + ": " +
                                  str((f.get("reason") or {}).get("reason"))[:120]
                                  for f in shards.get("failures", [])})
                return Outcome(started, time.monotonic() - started, False,
                               f"{shards['failed']} shard(s) failed ({'; '.join(reasons)})")
            answered = shards.get("successful", 0) + shards.get("skipped", 0)
            if answered < shards.get("total", 0):
                # HTTP 200, no failure counted, yet shards missing: unassigned shards (e.g.
                # primaries of a reopening index) count in total only.
                return Outcome(started, time.monotonic() - started, False,
                               f"partial: {answered} of {shards['total']} shards answered")
            total = resp["hits"]["total"]["value"]
            if total != self.expected[text]:
                return Outcome(started, time.monotonic() - started, False,
                               f"wrong hit count ({total}, expected {self.expected[text]}; "
                               f"_shards {json.dumps(shards, sort_keys=True)})")
            return Outcome(started, time.monotonic() - started, True)
        return Outcome(started, time.monotonic() - started, False, "no node answered")

    def _work(self, offset: int) -> None:
        texts = list(self.expected)
        i = offset
        while not self._stop.is_set():
            outcome = self._one(texts[i % len(texts)], i)
            with self._lock:
                self._outcomes.append(outcome)
            i += self.threads

    def __enter__(self) -> SearchLoad:
        self._began = time.monotonic()
        for k in range(self.threads):
            worker = threading.Thread(target=self._work, args=(k,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=60)
        failures = [o for o in self._outcomes if not o.ok]
        self.report = LoadReport(len(self._outcomes), len(failures), self._rerouted, failures,
                                 time.monotonic() - self._began)
