"""A fake transport that answers like a small OpenSearch 2.x cluster (indices, aliases, data
streams, blocks, clones, conditional document writes) and records every request, so unit tests
can assert the exact calls qidf makes and what state they leave.

``FakeEngine(index="code", ...)`` starts with one index; ``settings``, ``mapping`` and
``status`` are those of whatever concrete index the name ``index`` resolves to now (after a
clone swap, the clone). Paths are recorded without their query string, decoded.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError

_uuids = itertools.count(1)


@dataclass
class FakeIndex:
    name: str
    settings: dict[str, Any]
    mapping: dict[str, Any]
    status: str = "open"
    aliases: dict[str, dict[str, Any]] = field(default_factory=dict)
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> source/seq/term
    data_stream: str | None = None

    @property
    def uuid(self) -> str:
        return str(self.settings["index.uuid"])


def _flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(_flat(value, path))
        else:
            out[path] = value
    return out


def _index_settings(tree: dict[str, Any]) -> dict[str, Any]:
    flat = _flat(tree)
    return {(k if k.startswith("index.") else f"index.{k}"): v for k, v in flat.items()}


def _error(status: int, error_type: str, reason: str) -> ClusterError:
    return ClusterError(f"{error_type}: {reason}", status=status, error_type=error_type)


class FakeEngine:
    def __init__(self, index: str = "code", *, status: str = "open",
                 similarity: dict[str, str] | None = None, mapping: dict | None = None,
                 fail_update: bool = False, fail_open_times: int = 0,
                 plugins: tuple[str, ...] = (), extra_settings: dict[str, Any] | None = None,
                 docs: int = 3) -> None:
        self.plugins = plugins
        self.index = index
        self.indices: dict[str, FakeIndex] = {}
        self.data_streams: dict[str, list[str]] = {}
        self.cluster_settings: dict[str, dict[str, Any]] = {
            "persistent": {}, "transient": {}, "defaults": {"cluster.indices.close.enable":
                                                            "true"}}
        settings = {"index.number_of_shards": "1", "index.number_of_replicas": "1",
                    **(extra_settings or {})}
        for key, value in (similarity or {}).items():
            settings[f"index.similarity.default.{key}"] = value
        self.add_index(index, settings, mapping or {"properties": {"body": {"type": "text"}}},
                       status=status, docs=docs)
        self.pipelines: dict[str, dict[str, Any]] = {}  # search pipelines by id
        self.fail_update = fail_update
        self.fail_open_times = fail_open_times
        self._seqs = itertools.count(100)
        self.calls: list[tuple[str, str, Any]] = []
        self.queries: list[dict[str, str]] = []
        # Test hooks: called with (method, path, body) before a request is served; may raise.
        self.before: Callable[[str, str, Any], None] | None = None

    # --- the test's view ------------------------------------------------------------------

    def add_index(self, name: str, settings: dict[str, Any] | None = None,
                  mapping: dict | None = None, *, status: str = "open", docs: int = 0,
                  aliases: dict[str, dict] | None = None) -> FakeIndex:
        flat = {"index.number_of_shards": "1", "index.number_of_replicas": "1",
                **(settings or {}), "index.uuid": f"uuid-{next(_uuids)}"}
        idx = FakeIndex(name, {k: str(v) if isinstance(v, (int, float, bool)) and
                               not isinstance(v, str) else v for k, v in flat.items()},
                        copy.deepcopy(mapping or {"properties": {}}), status,
                        dict(aliases or {}))
        for i in range(docs):
            idx.docs[str(i)] = {"source": {"body": f"doc {i}"}, "seq": i, "term": 1}
        self.indices[name] = idx
        return idx

    def concrete(self, name: str | None = None) -> FakeIndex:
        name = name or self.index
        if name in self.indices:
            return self.indices[name]
        owners = [i for i in self.indices.values() if name in i.aliases]
        assert len(owners) == 1, f"{name} resolves to {len(owners)} indices"
        return owners[0]

    @property
    def settings(self) -> dict[str, Any]:
        return self.concrete().settings

    @property
    def mapping(self) -> dict[str, Any]:
        return self.concrete().mapping

    @property
    def status(self) -> str:
        return self.concrete().status

    @status.setter
    def status(self, value: str) -> None:
        self.concrete().status = value

    def similarity(self, name: str | None = None) -> dict[str, Any]:
        prefix = "index.similarity.default."
        return {k[len(prefix):]: v for k, v in self.concrete(name).settings.items()
                if k.startswith(prefix) and v is not None}

    def writes(self, include_state: bool = False) -> list[tuple[str, str]]:
        """Non-GET requests; qidf's own state documents left out unless asked for."""
        return [(m, p) for m, p, _ in self.calls if m != "GET" and (
            include_state or not p.startswith(("/qidf-state", "/_cluster/health")))]

    def state_docs(self) -> dict[str, dict[str, Any]]:
        """Leases and journals (not the owner document that marks the index as qidf's)."""
        state = self.indices.get("qidf-state")
        return {k: v["source"] for k, v in state.docs.items()
                if k != "owner:qidf-state"} if state else {}

    # --- the transport --------------------------------------------------------------------

    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        bare, _, query = path.partition("?")
        bare = "/".join(unquote(part) for part in bare.split("/"))
        q = dict(parse_qsl(query))
        q.update({k: str(v) for k, v in (params or {}).items()})
        self.calls.append((method, bare, copy.deepcopy(body)))
        self.queries.append(q)
        if self.before is not None:
            self.before(method, bare, body)
        return self._serve(method, bare, body, q)

    def _get(self, name: str) -> FakeIndex:
        if name not in self.indices:
            raise _error(404, "index_not_found_exception", f"no such index [{name}]")
        return self.indices[name]

    def _resolve(self, name: str) -> list[FakeIndex]:
        if name in self.indices:
            return [self.indices[name]]
        found = [i for i in self.indices.values() if name in i.aliases]
        if not found:
            raise _error(404, "index_not_found_exception", f"no such index [{name}]")
        return found

    def _serve(self, method: str, path: str, body: Any, q: dict[str, str]) -> Any:
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/_nodes/plugins":
            return {"nodes": {"n1": {"name": "node-1", "roles": ["data", "ingest"],
                                     "plugins": [{"name": p} for p in self.plugins]},
                              "m1": {"name": "master-1", "roles": ["cluster_manager"],
                                     "plugins": []}}}
        if method == "GET" and path == "/_nodes/search_pipelines":
            processors = ([{"type": "qidf_index_statistics"}]
                          if "qidf-qlog-similarity" in self.plugins else [])
            return {"nodes": {n: {"name": name, "search_pipelines": {
                "request_processors": list(processors), "response_processors": []}}
                for n, name in (("n1", "node-1"), ("m1", "master-1"))}}
        if parts[:2] == ["_search", "pipeline"]:
            return self._pipeline(method, parts[2], body)
        if method == "GET" and path == "/_cluster/health":
            return {"status": "green"}
        if method == "GET" and path == "/_cluster/settings":
            return copy.deepcopy(self.cluster_settings)
        if method == "GET" and parts[0] == "_resolve":
            return self._resolve_api(parts[2])
        if method == "GET" and parts[0] == "_data_stream":
            name = parts[1]
            return {"data_streams": [{"name": name, "indices": [
                {"index_name": i} for i in self.data_streams.get(name, [])]}]}
        if method == "GET" and parts[0] == "_cat":
            rows = [{"index": i.name, "status": i.status} for i in self._resolve(parts[2])]
            return rows
        if method == "GET" and parts[0] == "_cluster" and parts[1] == "health":
            idx = self._get(parts[2])
            status = "green" if idx.status == "open" else "red"
            return {"status": status, "timed_out": False, "indices": {idx.name: {
                "status": status, "number_of_shards": 1,
                "active_primary_shards": 1 if idx.status == "open" else 0}}}
        if method == "POST" and path == "/_aliases":
            return self._aliases(body["actions"])
        if parts[0].endswith("*"):  # GET qidf-validate-*/_mapping
            prefix = parts[0][:-1]
            return {i.name: {"mappings": copy.deepcopy(i.mapping)}
                    for i in self.indices.values() if i.name.startswith(prefix)}
        name, rest = parts[0], parts[1:]
        if not rest:
            return self._index_itself(method, name, body)
        api = rest[0]
        if api in ("_doc", "_create") and name == "qidf-state":
            return self._state_doc(method, api, rest[1], body, q)
        if api == "_doc":  # a scratch index's one document
            self._get(name).docs[rest[1]] = {"source": body, "seq": 0, "term": 1}
            return {"result": "created"}
        if method == "GET" and api == "_settings":
            found = list(self.indices.values()) if name == "_all" else self._resolve(name)
            if len(rest) > 1 and rest[1] != "index.uuid":  # one setting, flat
                return {i.name: {"settings": {k: v for k, v in i.settings.items()
                                              if k == rest[1]}} for i in found}
            if len(rest) > 1:
                return {i.name: {"settings": {"index": {"uuid": i.uuid}}} for i in found}
            return {i.name: {"settings": dict(i.settings)} for i in found}
        idx = self._get(name)
        if method == "GET" and api == "_alias":
            return {idx.name: {"aliases": copy.deepcopy(idx.aliases)}}
        if method == "GET" and api == "_mapping":
            if idx.status != "open":
                raise _error(400, "index_closed_exception", f"closed [{name}]")
            return {idx.name: {"mappings": copy.deepcopy(idx.mapping)}}
        if method == "PUT" and api == "_mapping":
            if idx.status != "open":
                raise _error(400, "index_closed_exception", f"closed [{name}]")
            idx.mapping["_meta"] = copy.deepcopy(body["_meta"])
            return {"acknowledged": True}
        if method == "POST" and api == "_close":
            idx.status = "close"
            return {"acknowledged": True}
        if method == "POST" and api == "_open":
            if self.fail_open_times:
                self.fail_open_times -= 1
                raise _error(400, "index_closed_exception", "cannot open")
            idx.status = "open"
            return {"acknowledged": True}
        if method == "PUT" and api == "_settings":
            if q.get("reopen") == "true":  # Elasticsearch 8.12+: close, update, open
                idx.status = "close"
                self._put_settings(idx, body)
                idx.status = "open"
                return {"acknowledged": True}
            return self._put_settings(idx, body)
        if method == "PUT" and api == "_block":
            idx.settings[f"index.blocks.{rest[1]}"] = "true"
            return {"acknowledged": True, "shards_acknowledged": True}
        if method == "POST" and api == "_clone":
            return self._clone(idx, rest[1], body or {})
        if method == "POST" and api in ("_refresh", "_search"):
            return {"hits": {"hits": []}, "_shards": {"failed": 0}}
        if method == "GET" and api == "_count":
            return {"count": len(idx.docs)}
        if method == "GET" and api == "_stats":
            return {"_all": {"total": {"search": {"query_current": 0}}}}
        raise AssertionError(f"unexpected request {method} {path}")

    def _pipeline(self, method: str, pipeline: str, body: Any) -> Any:
        if method == "PUT":
            self.pipelines[pipeline] = copy.deepcopy(body)
            return {"acknowledged": True}
        if pipeline not in self.pipelines:
            raise _error(404, "resource_not_found_exception", f"pipeline [{pipeline}] is missing")
        if method == "DELETE":
            del self.pipelines[pipeline]
            return {"acknowledged": True}
        return {pipeline: copy.deepcopy(self.pipelines[pipeline])}

    def _resolve_api(self, name: str) -> dict[str, Any]:
        if name in self.data_streams:
            return {"indices": [], "aliases": [], "data_streams": [
                {"name": name, "backing_indices": self.data_streams[name]}]}
        if name in self.indices:
            idx = self.indices[name]
            attrs = [idx.status if idx.status == "open" else "closed"]
            if str(idx.settings.get("index.hidden", "false")) == "true":
                attrs.append("hidden")
            entry: dict[str, Any] = {"name": name, "aliases": sorted(idx.aliases),
                                     "attributes": attrs}
            if idx.data_stream:
                entry["data_stream"] = idx.data_stream
            return {"indices": [entry], "aliases": [], "data_streams": []}
        owners = sorted(i.name for i in self.indices.values() if name in i.aliases)
        if owners:
            return {"indices": [], "aliases": [{"name": name, "indices": owners}],
                    "data_streams": []}
        raise _error(404, "index_not_found_exception", f"no such index [{name}]")

    def _index_itself(self, method: str, name: str, body: Any) -> Any:
        if method == "PUT":
            if name in self.indices:
                raise _error(400, "resource_already_exists_exception", name)
            body = body or {}
            self.add_index(name, _index_settings(body.get("settings", {})),
                           body.get("mappings"))
            return {"acknowledged": True}
        if method == "DELETE":
            self._get(name)
            del self.indices[name]
            return {"acknowledged": True}
        raise AssertionError(f"unexpected request {method} /{name}")

    def _put_settings(self, idx: FakeIndex, body: dict[str, Any]) -> Any:
        flat = _index_settings(body)
        if any(k.startswith("index.similarity.") for k in flat):
            assert idx.status == "close", "similarity updated on an open index"
            if self.fail_update:
                raise _error(400, "illegal_argument_exception", "bad similarity")
        for key, value in flat.items():
            if value is None:
                idx.settings.pop(key, None)
            else:
                idx.settings[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return {"acknowledged": True}

    def _clone(self, source: FakeIndex, target: str, body: dict[str, Any]) -> Any:
        assert source.settings.get("index.blocks.write") == "true", "clone needs a write block"
        if target in self.indices:
            raise _error(400, "resource_already_exists_exception", target)
        settings = {k: v for k, v in source.settings.items()
                    if k not in ("index.uuid", "index.number_of_replicas")}
        for key, value in _index_settings(body.get("settings", {})).items():
            if value is None and key.startswith("index.similarity.") and key in settings:
                # OpenSearch 2.19.6: a null in a clone request does not drop a copied key
                raise _error(400, "illegal_argument_exception",
                             f"Unknown settings for similarity: [{key}]")
            settings[key] = value if value is None else str(value)
        sim = {k: v for k, v in settings.items() if k.startswith("index.similarity.default.")}
        if sim and sim.get("index.similarity.default.type") is None:
            raise _error(400, "illegal_argument_exception",
                         "Similarity [default] must have an associated type")
        clone = self.add_index(target, {**settings, "index.resize.source.uuid": source.uuid},
                               source.mapping)
        clone.docs = copy.deepcopy(source.docs)
        return {"acknowledged": True}

    def _aliases(self, actions: list[dict[str, Any]]) -> Any:
        before = copy.deepcopy(self.indices)
        try:
            for action in actions:
                (kind, spec), = action.items()
                if kind == "add":
                    props = {k: v for k, v in spec.items() if k not in ("index", "alias")}
                    if spec["alias"] in self.indices:
                        raise _error(400, "invalid_alias_name_exception", spec["alias"])
                    self._get(spec["index"]).aliases[spec["alias"]] = props
                elif kind == "remove":
                    if spec["alias"] not in self._get(spec["index"]).aliases:
                        raise _error(404, "aliases_not_found_exception", spec["alias"])
                    self._get(spec["index"]).aliases.pop(spec["alias"])
                elif kind == "remove_index":
                    del self.indices[self._get(spec["index"]).name]
        except Exception:
            self.indices = before  # atomic: all or nothing
            raise
        return {"acknowledged": True}

    def _state_doc(self, method: str, api: str, doc_id: str, body: Any,
                   q: dict[str, str]) -> Any:
        idx = self._get("qidf-state")
        doc = idx.docs.get(doc_id)
        seq = next(self._seqs)
        if method == "GET":
            if doc is None:
                raise _error(404, "", "not found")
            return {"found": True, "_source": copy.deepcopy(doc["source"]),
                    "_seq_no": doc["seq"], "_primary_term": doc["term"]}
        conditional = "if_seq_no" in q
        if conditional and (doc is None or str(doc["seq"]) != q["if_seq_no"]):
            raise _error(409, "version_conflict_engine_exception", doc_id)
        if method == "DELETE":
            if doc is None:
                raise _error(404, "", "not found")
            del idx.docs[doc_id]
            return {"result": "deleted"}
        if api == "_create" and doc is not None:
            raise _error(409, "version_conflict_engine_exception", doc_id)
        idx.docs[doc_id] = {"source": copy.deepcopy(body), "seq": seq, "term": 1}
        return {"_seq_no": seq, "_primary_term": 1}


def fake_cluster(engine: FakeEngine, version: str = "2.19.6",
                 distribution: str = "opensearch") -> Cluster:
    return Cluster(engine, EngineInfo(distribution, version), "http://fake:9200")
