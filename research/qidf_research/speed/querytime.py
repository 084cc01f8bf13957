"""Query time in the speed benchmark: the product's own builder (``qidf_ctl.querytime``)
over the benchmark's raw HTTP connection, so that for these systems too no client library
sits between the timer and the socket, and the numbers are the library's real cost."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError
from qidf_ctl.querytime import DfCache, QueryTime, Target
from qidf_research.speed.client import Client
from qidf_research.speed.queries import Build, QuerySet
from qidf_research.speed.settings import FIELD, QT_COLD, QT_SEARCH, QT_WARM

WARM_TTL = 1e9  # the warm cache never expires during a run (rounds take minutes)


class HttpTransport:
    """``Cluster``'s transport over the benchmark client's connection; ``client`` is swapped
    when the node restarts."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def __call__(self, method: str, path: str, body: Any = None,
                 params: dict[str, Any] | None = None) -> Any:
        if params:
            path = f"{path}?{urlencode(params)}"
        data = None if body is None else (body if isinstance(body, str)
                                           else json.dumps(body)).encode()
        conn = self.client.conn
        conn.request(method, path, body=data, headers={"Content-Type": "application/json",
                                                       "Connection": "keep-alive"})
        resp = conn.getresponse()
        parsed = json.loads(resp.read())
        if resp.status >= 300:
            raise ClusterError(f"{method} {path} failed: {str(parsed)[:300]}",
                               status=resp.status)
        return parsed


class QueryTimeSystems:
    """The three query-time systems on the BM25 index ``index`` at ``q``: one warm df cache
    kept across node restarts (the node's statistics do not change), one with no cache."""

    def __init__(self, client: Client, index: str, version: str, q: float, size: int) -> None:
        self.transport = HttpTransport(client)
        cluster = Cluster(self.transport, EngineInfo("opensearch", version),
                          f"http://127.0.0.1:{client.port}")
        target = Target(index, FIELD, 1, "built-in BM25", True)
        self.warm = QueryTime(cluster, target, q, cache=DfCache(ttl_seconds=WARM_TTL))
        self.cold = QueryTime(cluster, target, q, cache=DfCache(ttl_seconds=0))
        self.size = size

    def use(self, client: Client) -> None:
        self.transport.client = client

    def _builder(self, qt: QueryTime, extra: dict[str, Any]) -> Build:
        def build(text: bytes) -> bytes:
            return json.dumps(qt.build(text.decode()).body(self.size, **extra)).encode()
        return build

    def attach(self, query_sets: Sequence[QuerySet]) -> None:
        """Give each set its query-time work; building the prebuilt bodies also fills the
        warm cache with every term of every query (what "warm" means here)."""
        for qs in query_sets:
            extra = {"_source": False, **qs.extra}
            texts = [t.encode() for t in qs.texts]
            warm = self._builder(self.warm, extra)
            qs.work = {QT_SEARCH: ([warm(t) for t in texts], None), QT_WARM: (texts, warm),
                       QT_COLD: (texts, self._builder(self.cold, extra))}
