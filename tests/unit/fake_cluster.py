"""A fake transport that answers like a one-index OpenSearch 2.x cluster and records every
request, so unit tests can assert the exact calls qidf makes."""

from __future__ import annotations

import copy
from typing import Any

from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError


class FakeEngine:
    def __init__(self, index: str = "code", *, status: str = "open",
                 similarity: dict[str, str] | None = None, mapping: dict | None = None,
                 fail_update: bool = False, fail_open_times: int = 0,
                 plugins: tuple[str, ...] = ()) -> None:
        self.plugins = plugins
        self.index = index
        self.status = status
        self.settings = {"index.number_of_shards": "1", "index.uuid": "u1"}
        for key, value in (similarity or {}).items():
            self.settings[f"index.similarity.default.{key}"] = value
        self.mapping = mapping or {"properties": {"body": {"type": "text"}}}
        self.fail_update = fail_update
        self.fail_open_times = fail_open_times
        self.calls: list[tuple[str, str, Any]] = []

    def writes(self) -> list[tuple[str, str]]:
        return [(m, p.split("?")[0]) for m, p, _ in self.calls if m != "GET"]

    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.calls.append((method, path, copy.deepcopy(body)))
        bare = path.split("?")[0]
        if bare.startswith("/qidf-validate-"):
            return {"acknowledged": True, "hits": {"hits": []}}
        if method == "GET" and bare == "/_nodes/plugins":
            return {"nodes": {"n1": {"name": "node-1", "roles": ["data", "ingest"],
                                     "plugins": [{"name": p} for p in self.plugins]},
                              "m1": {"name": "master-1", "roles": ["cluster_manager"],
                                     "plugins": []}}}
        if bare.startswith("/nosuch"):
            raise ClusterError("index_not_found_exception: no such index", status=404)
        if method == "GET" and bare == f"/{self.index}/_settings/index.uuid":
            return {self.index: {"settings": {"index": {"uuid": "u1"}}}}
        if method == "GET" and bare == f"/_cat/indices/{self.index}":
            return [{"index": self.index, "status": self.status}]
        if method == "GET" and bare == f"/{self.index}/_settings":
            return {self.index: {"settings": dict(self.settings)}}
        if method == "GET" and bare == f"/{self.index}/_mapping":
            return {self.index: {"mappings": copy.deepcopy(self.mapping)}}
        if method == "PUT" and bare == f"/{self.index}/_mapping":
            self.mapping["_meta"] = copy.deepcopy(body["_meta"])
            return {"acknowledged": True}
        if method == "POST" and bare == f"/{self.index}/_close":
            self.status = "close"
            return {"acknowledged": True}
        if method == "PUT" and bare == f"/{self.index}/_settings":
            assert self.status == "close", "settings updated on an open index"
            if self.fail_update:
                raise ClusterError("illegal_argument_exception: bad similarity", status=400)
            for key, value in body.items():
                if value is None:
                    self.settings.pop(key, None)
                else:
                    self.settings[key] = str(value)
            return {"acknowledged": True}
        if method == "POST" and bare == f"/{self.index}/_open":
            if self.fail_open_times:
                self.fail_open_times -= 1
                raise ClusterError("index_closed_exception: cannot open", status=400)
            self.status = "open"
            return {"acknowledged": True}
        if method == "GET" and bare == f"/_cluster/health/{self.index}":
            return {"status": "green", "timed_out": False}
        raise AssertionError(f"unexpected request {method} {path}")


def fake_cluster(engine: FakeEngine, version: str = "2.19.6") -> Cluster:
    return Cluster(engine, EngineInfo("opensearch", version), "http://fake:9200")
